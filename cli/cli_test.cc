// CLI behaviour golden files cannot show: a terminal on stdin, files written
// by -o.
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "cli/run_dfg_test_util.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

using Run = testing::DfgRun;
using testing::RunDfg;

TEST_CASE("convert and info print usage when stdin is a terminal", "[cli]") {
  for (const char* sub : {"convert", "info"}) {
    INFO(sub);
    Run run = RunDfg({sub}, "node { name: \"a\" op: \"NoOp\" }",
                     /*stdin_is_terminal=*/true);
    CHECK(run.code == 2);
    CHECK(run.out.empty());
    CHECK_THAT(run.err, Contains("stdin is a terminal"));
    CHECK_THAT(run.err, Contains("Usage:"));
  }
  // An explicit "-" reads the terminal anyway, as cat does.
  Run run = RunDfg({"info", "-"}, "node { name: \"a\" op: \"NoOp\" }", true);
  CHECK(run.code == 0);
}

TEST_CASE("convert -o writes the form its extension names", "[cli]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("dfg_cli_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string model = testing::SourceDir() + "/testdata/models/mlp.pbtxt";
  std::string json = (dir / "mlp.json").string();
  Run run = RunDfg({"convert", model, "-o", json});
  CHECK(run.code == 0);
  CHECK(run.out.empty());
  std::string text = testing::ReadFileOrDie(json);
  CHECK(text.rfind("{\n \"node\": [", 0) == 0);

  std::string pb = (dir / "mlp.pb").string();
  CHECK(RunDfg({"convert", json, "-o", pb}).code == 0);
  Run back = RunDfg({"convert", pb});
  CHECK(back.code == 0);
  CHECK(back.out == RunDfg({"convert", model}).out);

  // A failed read leaves no output file behind.
  std::string none = (dir / "none.pbtxt").string();
  Run bad = RunDfg({"convert", "-", "-o", none}, "garbage {");
  CHECK(bad.code == 1);
  CHECK_FALSE(fs::exists(none));
  fs::remove_all(dir);
}

TEST_CASE("convert refuses binary output to a terminal", "[cli]") {
  std::string model = testing::SourceDir() + "/testdata/models/mlp.pbtxt";
  std::vector<const char*> argv = {"dfg", "convert", model.c_str(), "-f", "pb"};
  std::istringstream in;
  std::ostringstream out, err;
  Io io{&in, &out, &err, false, /*stdout_is_terminal=*/true, false};
  CHECK(DfgMain(static_cast<int>(argv.size()), argv.data(), io) == 1);
  CHECK_THAT(err.str(), Contains("refusing to write binary output"));
}

}  // namespace
}  // namespace dfg
