// How dfg leaves the files it writes: the mode of a file it replaces, a
// symlink written through, no temporary file after a failure or a fatal
// signal, and no partial set in an output directory.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/run_dfg_test_util.h"
#include "lib/base/temp_files.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "dfg-out-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("dir");
    path_ = pattern;
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const {
    return (path_ / name).string();
  }
  // Every file name in the directory tree, sorted.
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(path_)) {
      names.push_back(e.path().lexically_relative(path_).string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path path_;
};

std::string Model() {
  return testing::SourceDir() + "/testdata/models/mlp.pbtxt";
}

TEST_CASE("writing over a file with -o keeps the mode of the file it replaces",
          "[cli]") {
  TempDir dir;
  std::string out = dir / "private.pbtxt";
  std::ofstream(out) << "old";
  ::chmod(out.c_str(), 0600);
  REQUIRE(testing::RunDfg({"convert", Model(), "-o", out}).code == 0);
  struct stat st;
  REQUIRE(::stat(out.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(testing::ReadFileOrDie(out).rfind("node {", 0) == 0);
}

TEST_CASE("writing with -o goes through a symlink to its target", "[cli]") {
  TempDir dir;
  std::string target = dir / "target.pbtxt", link = dir / "link.pbtxt";
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  REQUIRE(testing::RunDfg({"convert", Model(), "-o", link}).code == 0);
  CHECK(fs::is_symlink(link));
  CHECK(testing::ReadFileOrDie(target).rfind("node {", 0) == 0);
  CHECK(dir.Names() == std::vector<std::string>{"link.pbtxt", "target.pbtxt"});
}

TEST_CASE("partition -o DIR/ writes every partition or none", "[cli]") {
  TempDir dir;
  std::string out = dir / "parts";
  // The second partition's file cannot be written: a directory is in its way.
  fs::create_directories(out +
                         "/job_localhost_replica_0_task_0_device_CPU_1.pbtxt");
  testing::DfgRun run = testing::RunDfg(
      {"partition",
       testing::SourceDir() + "/testdata/golden/partition/placed.pbtxt", "-o",
       out + "/"});
  CHECK(run.code == 1);
  CHECK_THAT(run.err, Contains("is a directory"));
  CHECK(
      dir.Names() ==
      std::vector<std::string>{
          "parts", "parts/job_localhost_replica_0_task_0_device_CPU_1.pbtxt"});
}

TEST_CASE("run --output-dir writes every fetch or none", "[cli]") {
  TempDir dir;
  std::string out = dir / "outs";
  fs::create_directories(out + "/stats_mean.npy");
  testing::DfgRun run = testing::RunDfg(
      {"run", Model(), "--feed",
       "x=" + testing::SourceDir() + "/testdata/models/mlp_input.npy",
       "--fetch", "probs", "--fetch", "stats/mean", "--output-dir", out});
  CHECK(run.code == 1);
  CHECK_THAT(run.err, Contains("stats_mean.npy: is a directory"));
  CHECK(dir.Names() == std::vector<std::string>{"outs", "outs/stats_mean.npy"});
}

// Runs `body` in a child process; its wait status.
template <typename F>
int InChild(F body) {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST_CASE("a write past RLIMIT_FSIZE fails and leaves no temporary file",
          "[cli]") {
  TempDir dir;
  std::string out = dir / "big.pbtxt";
  int status = InChild([&] {
    InstallTempFileCleanup();
    struct rlimit limit = {1000, 1000};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    return testing::RunDfg({"convert", Model(), "-o", out}).code;
  });
  REQUIRE(WIFEXITED(status));  // not killed by SIGXFSZ
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(dir.Names().empty());
}

TEST_CASE("a SaveV2 past RLIMIT_FSIZE fails and leaves no .tempstate file",
          "[cli]") {
  TempDir dir;
  std::string graph = R"pb(
    node {
      name: "prefix"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_STRING }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_STRING
            tensor_shape {}
            string_val: "PREFIX"
          }
        }
      }
    }
    node {
      name: "names"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_STRING }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_STRING
            tensor_shape { dim { size: 1 } }
            string_val: "w"
          }
        }
      }
    }
    node {
      name: "slices"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_STRING }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_STRING
            tensor_shape { dim { size: 1 } }
            string_val: ""
          }
        }
      }
    }
    node {
      name: "w"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape { dim { size: 1000000 } }
            float_val: 1
          }
        }
      }
    }
    node {
      name: "save"
      op: "SaveV2"
      input: "prefix"
      input: "names"
      input: "slices"
      input: "w"
      attr {
        key: "dtypes"
        value { list { type: DT_FLOAT } }
      }
    }
  )pb";
  graph.replace(graph.find("PREFIX"), 6, dir / "ckpt");
  int status = InChild([&] {
    InstallTempFileCleanup();
    struct rlimit limit = {100000, 100000};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    return testing::RunDfg({"run", "-", "--target", "save"}, graph).code;
  });
  REQUIRE(WIFEXITED(status));  // not killed by SIGXFSZ
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(dir.Names().empty());
}

TEST_CASE("a fatal signal removes the temporary files being written", "[cli]") {
  TempDir dir;
  std::string temp = dir / "out.pbtxt.tmp-123456";
  int status = InChild([&] {
    InstallTempFileCleanup();
    std::ofstream(temp) << "partial";
    RegisterTempFile(temp);
    ::raise(SIGTERM);
    return 0;
  });
  REQUIRE(WIFSIGNALED(status));  // dies of the signal, as without a handler
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(dir.Names().empty());
}

}  // namespace
}  // namespace dfg
