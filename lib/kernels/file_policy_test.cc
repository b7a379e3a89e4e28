// FilePolicy: how paths resolve (symlinks, "..", paths that do not exist
// yet) and which the file kernels may then touch.
#include "lib/kernels/file_policy.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using testing::KernelRun;
using testing::KernelTester;
using testing::MakeTensor;

// <tmp>/dfg_file_policy_<pid>_<n>/{allowed,outside}, resolved.
struct Dirs {
  Dirs() {
    static int counter = 0;
    root = fs::canonical(fs::temp_directory_path()).string() +
           fmt::format("/dfg_file_policy_{}_{}", ::getpid(), counter++);
    allowed = root + "/allowed";
    outside = root + "/outside";
    fs::create_directories(allowed);
    fs::create_directories(outside);
    std::ofstream(outside + "/secret") << "secret";
    std::ofstream(allowed + "/mine") << "mine";
  }
  ~Dirs() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  std::shared_ptr<const FilePolicy> Policy() const {
    return FilePolicy::Create({allowed}, "use --allow-path").value();
  }
  std::string root, allowed, outside;
};

TEST_CASE("file policy allows paths in its directories and nothing else",
          "[kernels]") {
  Dirs d;
  auto policy = d.Policy();
  CHECK(policy->Check("ReadFile", d.allowed + "/mine").ok());
  CHECK(policy->Check("ReadFile", d.allowed).ok());
  // Not there yet (a checkpoint SaveV2 will write, a directory WriteFile
  // makes).
  CHECK(policy->Check("SaveV2", d.allowed + "/new/dir/ckpt").ok());
  Status s = policy->Check("ReadFile", d.outside + "/secret");
  CHECK(s.code() == Code::kPermissionDenied);
  CHECK_THAT(std::string(s.message()), Contains("ReadFile") &&
                                           Contains(d.outside + "/secret") &&
                                           Contains("use --allow-path"));
  // A sibling sharing the allowed directory's name as a prefix.
  fs::create_directories(d.allowed + "2");
  CHECK(!policy->Check("ReadFile", d.allowed + "2/x").ok());
  CHECK(!policy->Check("ReadFile", "/etc/passwd").ok());
}

TEST_CASE("file policy resolves '..' and symlinks before it compares",
          "[kernels]") {
  Dirs d;
  auto policy = d.Policy();
  CHECK(!policy->Check("ReadFile", d.allowed + "/../outside/secret").ok());
  fs::create_directory_symlink(d.outside, d.allowed + "/link");
  CHECK(!policy->Check("ReadFile", d.allowed + "/link/secret").ok());
  CHECK(!policy->Check("WriteFile", d.allowed + "/link/new").ok());
  // ".." after a directory that does not exist yet (create_directories
  // would make it, then climb out).
  Status s = policy->Check("WriteFile", d.allowed + "/nope/../../outside/x");
  CHECK(s.code() == Code::kPermissionDenied);
  CHECK_THAT(std::string(s.message()), Contains("'..'"));
  // A symlink from outside into the allowed directory is fine.
  fs::create_directory_symlink(d.allowed, d.outside + "/in");
  CHECK(policy->Check("ReadFile", d.outside + "/in/mine").ok());
}

TEST_CASE("file policy without directories refuses every path", "[kernels]") {
  auto none = FilePolicy::Create({}, "hint").value();
  Status s = none->Check("SaveV2", "/tmp/x");
  CHECK(s.code() == Code::kPermissionDenied);
  CHECK_THAT(std::string(s.message()), Contains("no directory is allowed"));
  CHECK(FilePolicy::Create({"/no/such/dir/dfg"}, "").status().code() ==
        Code::kInvalidArgument);
}

KernelRun RunWith(const std::string& node, const FilePolicy* policy,
                  std::initializer_list<Tensor> inputs) {
  ScopedFilePolicy scope(policy);
  auto tester = KernelTester::Create(node).value();
  return tester->Run(inputs);
}

Tensor Str(const std::string& s) { return Tensor::Scalar<std::string>(s); }

TEST_CASE("file kernels ask the step's file policy first", "[kernels]") {
  Dirs d;
  auto policy = d.Policy();
  const std::string secret = d.outside + "/secret";
  KernelRun r =
      RunWith("name: 'r' op: 'ReadFile'", policy.get(), {Str(secret)});
  CHECK(r.status.code() == Code::kPermissionDenied);
  r = RunWith("name: 'r' op: 'ReadFile'", policy.get(),
              {Str(d.allowed + "/mine")});
  REQUIRE(r.status.ok());
  CHECK(r.out(0).scalar<std::string>() == "mine");
  r = RunWith("name: 'w' op: 'WriteFile'", policy.get(),
              {Str(d.outside + "/w"), Str("x")});
  CHECK(r.status.code() == Code::kPermissionDenied);
  CHECK(!fs::exists(d.outside + "/w"));
  r = RunWith(
      "name: 's' op: 'SaveV2' attr { key: 'dtypes' value { list { type: "
      "DT_FLOAT } } }",
      policy.get(),
      {Str(d.outside + "/ckpt"), MakeTensor<std::string>({1}, {"v"}),
       MakeTensor<std::string>({1}, {""}), Tensor::Scalar<float>(1)});
  CHECK(r.status.code() == Code::kPermissionDenied);
  CHECK(!fs::exists(d.outside + "/ckpt.index"));
  // ".*" matches ".." in a pattern: each match is checked too.
  r = RunWith("name: 'm' op: 'MatchingFiles'", policy.get(),
              {Str(d.allowed + "/.*/outside/*")});
  CHECK(r.status.code() == Code::kPermissionDenied);
  r = RunWith("name: 'm' op: 'MatchingFiles'", policy.get(),
              {Str(d.allowed + "/*")});
  REQUIRE(r.status.ok());
  CHECK(r.out(0).NumElements() == 1);
  // No policy (local dfg run): any path.
  r = RunWith("name: 'r' op: 'ReadFile'", nullptr, {Str(secret)});
  CHECK(r.status.ok());
}

}  // namespace
}  // namespace dfg
