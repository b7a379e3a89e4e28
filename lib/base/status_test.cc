#include "lib/base/status.h"

#include "lib/testing/catch.h"

namespace dfg {
namespace {

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument("{} is odd", x);
  return x / 2;
}

Status Quarter(int x, int* out) {
  DFG_ASSIGN_OR_RETURN(int h, Half(x));
  DFG_ASSIGN_OR_RETURN(*out, Half(h));
  return Status::Ok();
}

TEST_CASE("status carries code and message", "[base]") {
  Status s = NotFound("node '{}' not found", "a");
  CHECK_FALSE(s.ok());
  CHECK(s.code() == Code::kNotFound);
  CHECK(s.ToString() == "NotFound: node 'a' not found");
  CHECK(Status::Ok().ToString() == "OK");
  CHECK(s.WithPrefix("x: ").message() == "x: node 'a' not found");
}

TEST_CASE("status macros propagate the first error", "[base]") {
  int out = 0;
  CHECK(Quarter(8, &out).ok());
  CHECK(out == 2);
  Status s = Quarter(6, &out);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK(s.message() == "3 is odd");
}

}  // namespace
}  // namespace dfg
