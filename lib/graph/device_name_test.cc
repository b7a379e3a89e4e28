#include "lib/graph/device_name.h"

#include "lib/testing/catch.h"

namespace dfg {
namespace {

ParsedDeviceName Parse(const std::string& s) {
  ParsedDeviceName p;
  INFO(s);
  REQUIRE(ParseFullName(s, &p));
  return p;
}

bool Parses(const std::string& s) {
  ParsedDeviceName p;
  return ParseFullName(s, &p);
}

// The canonical string of a parsed name.
std::string Canon(const std::string& s) { return ParsedNameToString(Parse(s)); }

std::string Merge(const std::string& a, const std::string& b, bool soft) {
  ParsedDeviceName target = Parse(a);
  Status s = MergeDevNames(&target, Parse(b), soft);
  if (!s.ok()) return "error: " + s.message();
  return ParsedNameToString(target);
}

std::string Override(const std::string& a, const std::string& b) {
  ParsedDeviceName target = Parse(a);
  MergeOverrideDevNames(&target, Parse(b));
  return ParsedNameToString(target);
}

TEST_CASE("ParseFullName reads full names", "[graph]") {
  ParsedDeviceName p = Parse("/job:foo_bar/replica:1/task:2/device:GPU:3");
  CHECK(p.IsFullySpecified());
  CHECK(p.job == "foo_bar");
  CHECK(p.replica == 1);
  CHECK(p.task == 2);
  CHECK(p.type == "GPU");
  CHECK(p.id == 3);
  CHECK(FullName("hello", 1, 2, "CPU", 3) ==
        "/job:hello/replica:1/task:2/device:CPU:3");
}

TEST_CASE("ParseFullName accepts '/' and '' as the empty specification",
          "[graph]") {
  CHECK_FALSE(Parse("/").HasSomeDetails());
  CHECK_FALSE(Parse("").HasSomeDetails());
  CHECK(Canon("/") == "");
}

TEST_CASE("legacy /cpu:N and /gpu:N mean /device:CPU:N and /device:GPU:N",
          "[graph]") {
  CHECK(Canon("/cpu:0") == "/device:CPU:0");
  CHECK(Canon("/CPU:1") == "/device:CPU:1");
  CHECK(Canon("/gpu:*") == "/device:GPU:*");
  CHECK(Canon("/job:foo/replica:1/task:2/gpu:3") ==
        "/job:foo/replica:1/task:2/device:GPU:3");
  CHECK(Canon("/job:foo/CPU:*") == "/job:foo/device:CPU:*");
  CHECK_FALSE(Parses("/gpu:"));
}

TEST_CASE("device wildcards and missing ids", "[graph]") {
  ParsedDeviceName p = Parse("/job:*/replica:4/gpu:*");
  CHECK_FALSE(p.has_job);
  CHECK(p.has_replica);
  CHECK(p.has_type);
  CHECK_FALSE(p.has_id);
  ParsedDeviceName q = Parse("/device:GPU");
  CHECK(q.has_type);
  CHECK_FALSE(q.has_id);
  CHECK(Canon("/device:GPU") == "/device:GPU:*");
  CHECK(Canon("/device:*:3") == "");  // type unset: the id is not printed
  CHECK(Canon("/task:*") == "");
}

TEST_CASE("'/device:GPU:' with a colon but no id does not parse", "[graph]") {
  CHECK_FALSE(Parses("/device:GPU:"));
  CHECK_FALSE(Parses("/job:foo/replica:1/task:2/device:gpu:"));
}

TEST_CASE("device types keep their case", "[graph]") {
  ParsedDeviceName p = Parse("/device:gpu:0");
  CHECK(p.type == "gpu");
  CHECK_FALSE(p == Parse("/device:GPU:0"));
  CHECK(Parse("/device:myspecialdevice:13").type == "myspecialdevice");
}

TEST_CASE("components may come in any order and repeat", "[graph]") {
  CHECK(Parse("/gpu:*/job:*/replica:4") == Parse("/replica:4/device:GPU:*"));
  CHECK(Canon("/job:*/device:GPU/replica:4") == "/replica:4/device:GPU:*");
  CHECK(Canon("/job:foo/task:0/replica:10/cpu:1") ==
        "/job:foo/replica:10/task:0/device:CPU:1");
  CHECK(Canon("/task:1/task:2") == "/task:2");
}

TEST_CASE("malformed device names do not parse", "[graph]") {
  CHECK_FALSE(Parses("foobar"));
  CHECK_FALSE(Parses("/foo:bar"));
  CHECK_FALSE(Parses("/job:123/replica:1/task:2/device:GPU:3"));
  CHECK_FALSE(Parses("/job:foo/replica:-1/task:2/device:GPU:3"));
  CHECK_FALSE(Parses("/job:foo/replica:1/task:-2/device:GPU:3"));
  CHECK_FALSE(Parses("/job:foo/replica:1/task:2/bar:3"));
  CHECK_FALSE(Parses("/job:foo/replica:1/task:2/device:GPU:3/extra"));
  CHECK_FALSE(Parses("/job:foo/task:0/replica/cpu:1"));
  CHECK_FALSE(Parses("/replica:99999999999"));
  CHECK_FALSE(Parses("//"));
}

TEST_CASE("canonical strings round-trip every combination of parts",
          "[graph]") {
  for (int mask = 0; mask < 16; ++mask) {
    std::string name;
    if (mask & 1) name += "/job:foo";
    if (mask & 2) name += "/replica:3";
    if (mask & 4) name += "/task:2";
    if (mask & 8) name += "/device:someDevice:3";
    CHECK(Canon(name) == name);
  }
}

TEST_CASE("specifications and compatibility", "[graph]") {
  const auto full = Parse("/job:work/replica:1/task:2/device:GPU:3");
  CHECK(IsCompleteSpecification(Parse("/job:*"), full));
  CHECK(IsCompleteSpecification(Parse("/gpu:*"), full));
  CHECK_FALSE(IsCompleteSpecification(Parse("/cpu:*"), full));
  CHECK_FALSE(IsCompleteSpecification(Parse("/device:GPU:2"), full));

  CHECK(IsSpecification(Parse("/job:*"), Parse("/replica:1")));
  CHECK(IsSpecification(Parse("/job:work/replica:1/gpu:*"), full));
  CHECK(IsSpecification(Parse("/cpu:0"), Parse("/cpu:0")));
  CHECK_FALSE(IsSpecification(full, Parse("/gpu:*")));
  CHECK_FALSE(IsSpecification(Parse("/cpu:*"), Parse("/job:*/task:2")));
  CHECK_FALSE(IsSpecification(Parse("/job:work/replica:0/task:2"),
                              Parse("/job:work/replica:*/task:2/gpu:3")));

  CHECK_FALSE(AreCompatibleDevNames(
      Parse("/job:work/replica:1/task:3/device:GPU:*"), Parse("/cpu:*")));
  CHECK(AreCompatibleDevNames(Parse("/job:work/replica:1/task:3"),
                              Parse("/cpu:*")));
}

TEST_CASE("MergeDevNames unions the set fields", "[graph]") {
  CHECK(Merge("", "", false) == "");
  CHECK(Merge("/job:foo/replica:1/task:2/cpu:1",
              "/job:foo/replica:1/task:2/cpu:1",
              false) == "/job:foo/replica:1/task:2/device:CPU:1");
  CHECK(Merge("", "/device:GPU:1", false) == "/device:GPU:1");
  CHECK(Merge("/job:foo", "/task:7", false) == "/job:foo/task:7");
  CHECK(Merge("/job:foo/replica:0", "/replica:0/task:1", false) ==
        "/job:foo/replica:0/task:1");
  CHECK(Merge("/gpu:*", "/gpu:*", false) == "/device:GPU:*");
  CHECK(Merge("/device:GPU:1", "/gpu:*", false) == "/device:GPU:1");
  CHECK(Merge("/gpu:*", "/device:GPU:1", false) == "/device:GPU:1");
}

TEST_CASE("MergeDevNames reports conflicts with TensorFlow's message",
          "[graph]") {
  CHECK(Merge("/job:foo", "/job:bar", false) ==
        "error: Cannot merge devices with incompatible jobs: '/job:foo' and "
        "'/job:bar'");
  CHECK(Merge("/replica:0", "/replica:1", false) ==
        "error: Cannot merge devices with incompatible replicas: '/replica:0' "
        "and '/replica:1'");
  CHECK(Merge("/task:0", "/task:1", false) ==
        "error: Cannot merge devices with incompatible tasks: '/task:0' and "
        "'/task:1'");
  CHECK(Merge("/gpu:*", "/cpu:*", false) ==
        "error: Cannot merge devices with incompatible types: '/device:GPU:*' "
        "and '/device:CPU:*'");
  CHECK(Merge("/device:GPU:0", "/device:GPU:1", false) ==
        "error: Cannot merge devices with incompatible ids: '/device:GPU:0' "
        "and '/device:GPU:1'");
  ParsedDeviceName t = Parse("/job:foo");
  CHECK(MergeDevNames(&t, Parse("/job:bar")).code() == Code::kInvalidArgument);
}

TEST_CASE("soft placement clears a conflicting type or id", "[graph]") {
  CHECK(Merge("/gpu:*", "/cpu:1", true) == "");
  CHECK(Merge("/cpu:1", "/gpu:*", true) == "");
  CHECK(Merge("/cpu:*", "/device:GPU:1", true) == "");
  CHECK(Merge("/device:GPU:1", "/device:GPU:2", true) == "/device:GPU:*");
  CHECK(Merge("/job:a/device:GPU:1", "/task:3/cpu:0", true) == "/job:a/task:3");
}

TEST_CASE("MergeOverrideDevNames lets the other name win conflicts",
          "[graph]") {
  CHECK(Override("", "") == "");
  CHECK(Override("/job:foo", "/task:7") == "/job:foo/task:7");
  CHECK(Override("/device:GPU:1", "/gpu:*") == "/device:GPU:1");
  CHECK(Override("/gpu:0", "/cpu:1") == "/device:CPU:1");
  CHECK(Override("/gpu:*", "/cpu:1") == "/device:CPU:1");
  CHECK(Override("/cpu:*", "/device:GPU:1") == "/device:GPU:1");
  CHECK(Override("/device:GPU:1", "/device:GPU:2") == "/device:GPU:2");
  CHECK(Override("/job:foo/CPU:*", "/device:GPU:1") == "/job:foo/device:GPU:1");
  CHECK(Override("/cpu:*", "/task:0/device:GPU:1") == "/task:0/device:GPU:1");
}

TEST_CASE("CanonicalizeDeviceName fills unset parts from the basename",
          "[graph]") {
  const std::string base = "/job:foo/replica:10/task:0/device:CPU:0";
  CHECK(*CanonicalizeDeviceName("/job:foo/replica:10/task:0/device:CPU:1",
                                base) ==
        "/job:foo/replica:10/task:0/device:CPU:1");
  CHECK(*CanonicalizeDeviceName("/job:foo/task:0/replica:10/cpu:1", base) ==
        "/job:foo/replica:10/task:0/device:CPU:1");
  CHECK(*CanonicalizeDeviceName("CPU:0", base) ==
        "/job:foo/replica:10/task:0/device:CPU:0");
  CHECK(*CanonicalizeDeviceName("GPU:2", base) ==
        "/job:foo/replica:10/task:0/device:GPU:2");
  CHECK(*CanonicalizeDeviceName("/device:GPU", base) ==
        "/job:foo/replica:10/task:0/device:GPU:0");
  CHECK(*CanonicalizeDeviceName("/task:3", base) ==
        "/job:foo/replica:10/task:3/device:CPU:0");

  auto bad = CanonicalizeDeviceName("/job:foo/task:0/replica/cpu:1", base);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == Code::kInvalidArgument);
  CHECK(bad.status().message() ==
        "Could not parse /job:foo/task:0/replica/cpu:1 into a device "
        "specification.");

  auto partial = CanonicalizeDeviceName("/device:CPU:0", "/device:CPU:0");
  REQUIRE_FALSE(partial.ok());
  CHECK(partial.status().message() ==
        "Basename: /device:CPU:0 should be fully specified.");
  auto unparsable =
      CanonicalizeDeviceName("/device:CPU:0", "/job:foo/task:0/replica/cpu:1");
  REQUIRE_FALSE(unparsable.ok());
  CHECK(unparsable.status().code() == Code::kInvalidArgument);
}

TEST_CASE("LocalName and LegacyName", "[graph]") {
  CHECK(*LocalName("/job:foo/replica:1/task:2/cpu:3") == "/device:CPU:3");
  CHECK(*LocalName("/job:foo/replica:1/task:2/device:CPU:3") ==
        "/device:CPU:3");
  CHECK(*LocalName("/job:foo/replica:1/task:2/device:abc:73") ==
        "/device:abc:73");
  CHECK_FALSE(LocalName("nonsense").ok());
  CHECK(LegacyName("localhost", 0, 0, "GPU", 1) ==
        "/job:localhost/replica:0/task:0/gpu:1");
}

TEST_CASE("CompareFullNames orders unparsable, partial, then by field",
          "[graph]") {
  const std::string a = "/job:foo/replica:0/task:0/device:CPU:0";
  CHECK_FALSE(CompareFullNames(a, a));
  CHECK(CompareFullNames(a, "/job:foo/replica:0/task:0/device:CPU:1"));
  CHECK(CompareFullNames(a, "/job:foo/replica:0/task:1/device:CPU:0"));
  CHECK(CompareFullNames(a, "/job:foo/replica:1/task:0/device:CPU:0"));
  CHECK(CompareFullNames(a, "/job:goo/replica:0/task:0/device:CPU:0"));
  CHECK(CompareFullNames(a, "/job:foo/replica:0/task:0/device:GPU:0"));
  CHECK_FALSE(CompareFullNames("/job:foo/replica:0/task:0/device:GPU:0", a));
  // Ids compare as numbers, not strings.
  CHECK(CompareFullNames("/device:CPU:2", "/device:CPU:10"));
  CHECK(CompareFullNames("unparseablename", "/device:CPU:1"));
  CHECK_FALSE(CompareFullNames("/device:CPU:1", "unparseablename"));
  CHECK(CompareFullNames("a-unparsable", "b-unparsable"));
  CHECK(CompareFullNames("/replica:0/task:0/device:CPU:1", a));
  CHECK_FALSE(CompareFullNames(a, "/replica:0/task:0/device:CPU:0"));
}

}  // namespace
}  // namespace dfg
