// SelectV2's broadcast walk (rows of merged dims) against the index map, for
// the shapes attention masks take and a mix of broadcast operands; and
// BroadcastTo's whole-input repeat.
#include <vector>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::MakeTensor;
using testing::RunKernel;

// Row-major offset in `dims` (right-aligned, size-1 dims broadcast) of the
// output index `o` of `out`.
int64_t Offset(const std::vector<int64_t>& dims,
               const std::vector<int64_t>& out, int64_t o) {
  int64_t off = 0, stride = 1;
  const int shift = static_cast<int>(out.size() - dims.size());
  for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
    const int64_t i = o % out[d];
    o /= out[d];
    if (d - shift < 0) break;
    const int64_t size = dims[d - shift];
    if (size != 1) off += i * stride;
    stride *= size;
  }
  return off;
}

TEST_CASE("SelectV2 broadcasts in rows and matches the index map",
          "[kernels]") {
  struct Case {
    std::vector<int64_t> c, t, e, out;
  };
  const std::vector<Case> cases = {
      {{4, 1, 6, 6}, {4, 2, 6, 6}, {}, {4, 2, 6, 6}},  // attention mask
      {{2, 1, 3, 1}, {1, 4, 3, 5}, {5}, {2, 4, 3, 5}},
      {{3}, {2, 3}, {2, 1}, {2, 3}},
      {{2, 3}, {2, 3}, {2, 3}, {2, 3}},
      {{1}, {7}, {1}, {7}},
      {{2, 1}, {1, 1}, {1, 3}, {2, 3}},
  };
  for (const Case& k : cases) {
    auto count = [](const std::vector<int64_t>& d) {
      int64_t n = 1;
      for (int64_t x : d) n *= x;
      return n;
    };
    std::vector<bool> cv;
    std::vector<float> tv, ev;
    for (int64_t i = 0; i < count(k.c); ++i) cv.push_back((i * 7 + 3) % 5 < 2);
    for (int64_t i = 0; i < count(k.t); ++i) tv.push_back(float(i));
    for (int64_t i = 0; i < count(k.e); ++i) ev.push_back(-1.0f - float(i));
    Tensor cond(tensorflow::DT_BOOL,
                TensorShape(std::span<const int64_t>(k.c)));
    for (size_t i = 0; i < cv.size(); ++i) cond.flat<bool>()[i] = cv[i];
    auto r = RunKernel(
        "name: 's' op: 'SelectV2' attr { key: 'T' value { type: DT_FLOAT } }",
        {cond, MakeTensor<float>(k.t, tv), MakeTensor<float>(k.e, ev)});
    REQUIRE(r.status.ok());
    auto o = r.out(0).flat<float>();
    REQUIRE(static_cast<int64_t>(o.size()) == count(k.out));
    bool same = true;
    for (int64_t i = 0; i < count(k.out); ++i) {
      const float want = cv[Offset(k.c, k.out, i)] ? tv[Offset(k.t, k.out, i)]
                                                   : ev[Offset(k.e, k.out, i)];
      same &= o[i] == want;
    }
    CHECK(same);
  }
}

TEST_CASE("BroadcastTo repeats the input when only leading dims broadcast",
          "[kernels]") {
  const std::string node =
      "name: 'b' op: 'BroadcastTo' attr { key: 'T' value { type: DT_INT32 } }";
  const Tensor table = MakeTensor<int32_t>({1, 3, 2}, {1, 2, 3, 4, 5, 6});
  auto r = RunKernel(node, {table, MakeTensor<int32_t>({4}, {5, 1, 3, 2})});
  REQUIRE(r.status.ok());
  auto o = r.out(0).flat<int32_t>();
  REQUIRE(o.size() == 30);
  bool same = true;
  for (size_t i = 0; i < o.size(); ++i) same &= o[i] == int32_t(i % 6 + 1);
  CHECK(same);
  auto strings = RunKernel(
      "name: 'b' op: 'BroadcastTo' attr { key: 'T' value { type: DT_STRING } "
      "}",
      {MakeTensor<std::string>({2}, {"a", "b"}),
       MakeTensor<int32_t>({2}, {3, 2})});
  REQUIRE(strings.status.ok());
  CHECK(strings.out(0).flat<std::string>()[5] == "b");
  CHECK(strings.out(0).flat<std::string>()[4] == "a");
}

}  // namespace
}  // namespace dfg
