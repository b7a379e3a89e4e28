#define CATCH_CONFIG_MAIN
#include "lib/base/sanitizer_options.h"  // once per executable
#include "lib/testing/catch.h"
