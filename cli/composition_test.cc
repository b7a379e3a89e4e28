// The three places that run the pipeline (lib/pipeline): the session (`dfg
// run --dump-partitions`), the distributed master, and the commands
// `dfg place | dfg prune | dfg partition`, held to byte-identical partition
// graphs for the same inputs. The commands place the whole graph before
// pruning, as the session and the master do (TensorFlow's default,
// place_pruned_graph off). Where TensorFlow's master names and numbers
// differently from DirectSession (rendezvous convention, by worker, "_S<k>"
// names, each device's incarnation), it is compared with the commands'
// output (`dfg prune --convention rendezvous`) partitioned with the master's
// options, as `dfg partition` partitions. All with optimization off: the
// commands chain no `dfg optimize` here.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cli/run_dfg_test_util.h"
#include "lib/distributed/master_session.h"
#include "lib/exec/session.h"
#include "lib/io/graph_io.h"
#include "lib/pipeline/execution_state.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"
#include "subcommands/context.h"

namespace dfg {
namespace {

namespace fs = std::filesystem;

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";
constexpr char kMasterTask[] = "/job:localhost/replica:0/task:0";

// `dfg ARGS` in-process; the error output on failure.
std::string Dfg(std::vector<std::string> args) {
  testing::DfgRun run = testing::RunDfg(std::move(args));
  return run.code == 0 ? ""
                       : "exit " + std::to_string(run.code) + ": " + run.err;
}

class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(fs::temp_directory_path() /
              ("dfg_composition_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const {
    return (path_ / name).string();
  }

 private:
  fs::path path_;
};

// File name -> bytes, for every file in `dir`.
std::map<std::string, std::string> ReadDir(const std::string& dir) {
  std::map<std::string, std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    files[entry.path().filename().string()] =
        testing::ReadFileOrDie(entry.path().string());
  }
  return files;
}

// The partitions as `dfg partition -o DIR` writes them.
std::map<std::string, std::string> AsFiles(
    const std::map<std::string, GraphDef>& parts, const std::string& dir) {
  fs::remove_all(dir);
  Status s = WritePartitionFiles(dir, GraphFormat::kPbtxt, parts);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return ReadDir(dir);
}

// One signature: DefaultFetchesAndTargets, and a feed for every consumed
// Placeholder, each list sorted as the session and the master sort them.
struct Signature {
  std::vector<std::string> feeds, fetches, targets;
};

Signature DefaultSignature(const GraphDef& graph) {
  Signature sig;
  DefaultFetchesAndTargets(graph, &sig.fetches, &sig.targets);
  std::set<std::string> fetched(sig.fetches.begin(), sig.fetches.end());
  for (const NodeDef& node : graph.node()) {
    if (node.op() == "Placeholder" && !fetched.count(node.name() + ":0")) {
      sig.feeds.push_back(node.name() + ":0");
    }
  }
  for (auto* list : {&sig.feeds, &sig.fetches, &sig.targets})
    std::sort(list->begin(), list->end());
  return sig;
}

// `dfg place IN --devices D --soft-placement | dfg prune ...` into `out`.
std::string PlaceThenPrune(const std::string& in, const std::string& devices,
                           const Signature& sig, const std::string& convention,
                           const std::string& client_incarnation,
                           const TempDir& dir, const std::string& out) {
  std::string placed = dir / "placed.pb";
  std::string error = Dfg(
      {"place", in, "--devices", devices, "--soft-placement", "-o", placed});
  if (!error.empty()) return "place: " + error;
  std::vector<std::string> prune = {"prune",
                                    placed,
                                    "--convention",
                                    convention,
                                    "--client-device",
                                    kCpu0,
                                    "--client-incarnation",
                                    client_incarnation,
                                    "-o",
                                    out};
  for (const std::string& f : sig.feeds)
    prune.insert(prune.end(), {"--feed", f});
  for (const std::string& f : sig.fetches)
    prune.insert(prune.end(), {"--fetch", f});
  for (const std::string& t : sig.targets)
    prune.insert(prune.end(), {"--target", t});
  error = Dfg(prune);
  return error.empty() ? "" : "prune: " + error;
}

// The session's partitions through the commands; "" or the error.
std::string CheckSession(const GraphDef& graph, const std::string& in,
                         const Signature& sig, const TempDir& dir, int* cut) {
  SessionOptions options;
  options.devices = {"cpu:0", "cpu:1"};
  auto state_options = SessionStateOptions(options);
  REQUIRE(state_options.ok());
  auto state = ExecutionState::Create(graph, *state_options);
  std::atomic<int64_t> counter{0};
  StatusOr<SessionGraphs> session =
      state.ok() ? BuildSessionGraphs(**state, sig.feeds, sig.fetches,
                                      sig.targets, &counter,
                                      /*optimize=*/nullptr)
                 : StatusOr<SessionGraphs>(state.status());
  std::string pruned = dir / "pruned.pb";
  std::string error =
      PlaceThenPrune(in, "cpu:0,cpu:1", sig, "function", "1", dir, pruned);
  fs::remove_all(dir / "cli");
  if (error.empty()) error = Dfg({"partition", pruned, "-o", dir / "cli"});
  if (!session.ok()) {
    // Refused by the session only: it runs kernels, the commands do not.
    const std::string& m = session.status().message();
    if (m.find("Op type not registered") != std::string::npos ||
        m.find("has been removed in version") != std::string::npos) {
      return "";
    }
    return error.empty() ? "the session fails, the commands do not: " + m : "";
  }
  if (!error.empty())
    return "the commands fail, the session does not: " + error;
  if (AsFiles(session->partitions, dir / "session") != ReadDir(dir / "cli")) {
    return "the session's partitions differ from dfg partition's";
  }
  ++*cut;
  return "";
}

// The master's partitions against the commands' client graph partitioned
// with the master's options; "" or the error.
std::string CheckMaster(const GraphDef& graph, const std::string& in,
                        const Signature& sig, const TempDir& dir, int* cut) {
  DeviceSet devices;
  REQUIRE(devices.AddDevice(kCpu0).ok());
  REQUIRE(devices.AddDevice(kCpu1).ok());
  const std::map<std::string, uint64_t> incarnations = {{kCpu0, 71},
                                                        {kCpu1, 72}};
  auto options = [&](std::atomic<int64_t>* counter) {
    MasterPartitionOptions o;
    o.client_device = kCpu0;
    o.client_incarnation = 71;
    o.incarnations = &incarnations;
    o.name_counter = counter;
    o.optimize = false;  // the stages as the commands chain them
    return o;
  };
  std::atomic<int64_t> master_counter{0}, cli_counter{0};
  auto state = PlaceMasterGraph(graph, devices, true, kMasterTask);
  using Parts = StatusOr<std::map<std::string, GraphDef>>;
  Parts master = state.ok()
                     ? MasterPartitions(**state, sig.feeds, sig.fetches,
                                        sig.targets, options(&master_counter))
                     : Parts(state.status());
  std::string pruned = dir / "pruned_rendezvous.pb";
  std::string error = PlaceThenPrune(in, std::string(kCpu0) + "," + kCpu1, sig,
                                     "rendezvous", "71", dir, pruned);
  Parts cli = Internal("{}", error);
  if (error.empty()) {
    auto loaded = ReadGraph(pruned, std::cin);
    REQUIRE(loaded.ok());
    auto g = ImportPlacedClientGraph(&loaded->graph, {});
    cli = g.ok() ? PartitionClientGraph(
                       g->get(), MasterPartitioning(options(&cli_counter)))
                 : Parts(g.status());
  }
  if (master.ok() != cli.ok()) {
    return master.ok() ? "the commands fail, the master does not: " +
                             cli.status().message()
                       : "the master fails, the commands do not: " +
                             master.status().message();
  }
  if (master.ok() &&
      AsFiles(*master, dir / "master") != AsFiles(*cli, dir / "master_cli")) {
    return "the master's partitions differ from the commands'";
  }
  if (master.ok()) ++*cut;
  return "";
}

TEST_CASE("session, master and dfg partition cut every corpus graph alike",
          "[pipeline][corpus]") {
  if (!testing::CorpusDir()) {
    WARN("../shared/corpus is absent: skipped");
    return;
  }
  TempDir dir("corpus");
  int compared = 0, session_cut = 0, master_cut = 0;
  std::map<std::string, std::string> outcomes;
  for (const std::string& path : testing::CorpusFiles()) {
    const std::string name = fs::path(path).filename().string();
    auto loaded = ReadGraph(path, std::cin);
    if (!loaded.ok()) continue;  // no graph: the corpus walks of lib/io
    Signature sig = DefaultSignature(loaded->graph);
    std::string s = CheckSession(loaded->graph, path, sig, dir, &session_cut);
    std::string m = CheckMaster(loaded->graph, path, sig, dir, &master_cut);
    if (!s.empty() || !m.empty()) outcomes[name] = s + " | " + m;
    ++compared;
  }
  for (const auto& [name, what] : outcomes) UNSCOPED_INFO(name << ": " << what);
  CHECK(outcomes.empty());
  // Most graphs partition (the others fail alike: devices or jobs not in the
  // set, ops without a kernel, malformed graphs).
  INFO(compared << " graphs, " << session_cut << " cut by the session, "
                << master_cut << " by the master");
  CHECK(session_cut >= compared * 3 / 4);
  CHECK(master_cut >= compared * 3 / 4);
}

// `dfg run --dump-partitions` itself, against the commands.
TEST_CASE("dfg run --dump-partitions writes dfg partition's files",
          "[pipeline]") {
  const std::string models = testing::SourceDir() + "/testdata/models/";
  struct Case {
    std::string model;
    Signature sig;
    std::vector<std::string> feed_files;
  };
  for (const Case& c :
       {Case{"mlp.pbtxt", {{"x"}, {"probs"}, {}}, {"mlp_input.npy"}},
        Case{"loop.pbtxt", {{"x"}, {"result"}, {}}, {"loop_input.npy"}},
        Case{"functions.pbtxt", {{}, {"if", "loop:0", "loop:1"}, {}}, {}}}) {
    INFO(c.model);
    TempDir dir("run");
    std::vector<std::string> run_args = {
        "run",          models + c.model,    "--devices",
        "cpu:0,cpu:1",  "--dump-partitions", dir / "run",
        "--no-optimize"};
    for (size_t i = 0; i < c.sig.feeds.size(); ++i) {
      run_args.insert(run_args.end(), {"--feed", c.sig.feeds[i] + "=" + models +
                                                     c.feed_files[i]});
    }
    for (const std::string& f : c.sig.fetches)
      run_args.insert(run_args.end(), {"--fetch", f});
    std::string error = Dfg(run_args);
    INFO(error);
    REQUIRE(error.empty());
    const Signature& sig = c.sig;
    std::string pruned = dir / "pruned.pb";
    error = PlaceThenPrune(models + c.model, "cpu:0,cpu:1", sig, "function",
                           "1", dir, pruned);
    if (error.empty()) error = Dfg({"partition", pruned, "-o", dir / "cli"});
    REQUIRE(error.empty());
    auto run = ReadDir(dir / "run");
    CHECK(!run.empty());
    CHECK(run == ReadDir(dir / "cli"));
  }
}

}  // namespace
}  // namespace dfg
