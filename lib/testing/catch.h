// The one include for Catch2 in tests. Debian 12 ships Catch2 v2.13; tests use
// only the subset shared with v3 (TEST_CASE, SECTION, CHECK/REQUIRE,
// CHECK_THAT with Contains), so moving to v3 changes this file alone.
#ifndef DFG_LIB_TESTING_CATCH_H_
#define DFG_LIB_TESTING_CATCH_H_

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif

#endif  // DFG_LIB_TESTING_CATCH_H_
