// The rows of bench/cli_bench.sh (dfg's performance targets) through the
// CLI's own code paths:
//   BM_CliRunStep/chain:N     one `dfg run` step of a Const + Identity chain
//                             of N nodes (ns per node = 1e9 / items_per_second)
//   BM_CliRunStep/fanout:N    one step of a Const read by N Identity nodes
//                             joined by a NoOp
//   BM_Cli/convert/N          `dfg convert -f pb` of a generated N-node DAG
//                             (lib/io/make_big_graph.py --shape dag; with
//                             DFG_BENCH_GRAPH=FILE.pb that file instead)
//   BM_ProtobufParseSerialize/N   protobuf's own parse + serialize of the
//                             same bytes: convert's floor
//   BM_Cli/place/N, BM_Cli/prune/N, BM_Cli/partition/N   `dfg place --devices
//                             cpu:0,gpu:0 -f pb -o`, `dfg prune` with 10
//                             fetches, `dfg partition -o DIR/` of that DAG
// The steps use the Session with the options `dfg run` gives it by default
// (SessionOptions{}, default fetches and targets, a cancellation flag);
// the others call DfgMain with the command line bench/cli_bench.sh runs.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/dfg_main.h"
#include "lib/exec/session.h"
#include "lib/proto/graph.pb.h"

namespace dfg {
namespace {

NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op,
                 std::vector<std::string> inputs) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (auto& i : inputs) n->add_input(std::move(i));
  return n;
}

NodeDef* AddScalarConst(GraphDef* g, const std::string& name) {
  NodeDef* n = AddNode(g, name, "Const", {});
  (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  auto* t = (*n->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(tensorflow::DT_FLOAT);
  t->mutable_tensor_shape();
  t->add_float_val(1);
  return n;
}

void SetT(NodeDef* n) {
  (*n->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
}

// make_big_graph.py --shape chain / fanout.
GraphDef IdentityGraph(int total, bool chain) {
  GraphDef g;
  AddScalarConst(&g, "c");
  if (chain) {
    std::string prev = "c";
    for (int i = 1; i < total; ++i) {
      std::string name = "id_" + std::to_string(i);
      SetT(AddNode(&g, name, "Identity", {prev}));
      prev = name;
    }
    return g;
  }
  const int width = std::max(1, total - 2);
  NodeDef join;
  join.set_name("join");
  join.set_op("NoOp");
  for (int i = 0; i < width; ++i) {
    std::string name = "id_" + std::to_string(i);
    SetT(AddNode(&g, name, "Identity", {"c"}));
    join.add_input("^" + name);
  }
  *g.add_node() = std::move(join);
  return g;
}

// make_big_graph.py --shape dag: ~3 inputs a node.
GraphDef DagGraph(int total) {
  GraphDef g;
  std::vector<std::string> names;
  uint32_t state = 12345;
  auto rand = [&](int n) {
    state = (state * 1103515245u + 12345u) & 0x7FFFFFFFu;
    return static_cast<int>(state % n);
  };
  for (int i = 0; i < total; ++i) {
    std::string name =
        "blk" + std::to_string(i / 1000) + "/n" + std::to_string(i);
    if (i < 3 || i % 100 == 0) {
      AddScalarConst(&g, name);
    } else {
      std::string a = names[i - 1 - rand(std::min(i, 8))];
      std::string b = names[i - 1 - rand(std::min(i, 1000))];
      std::string c = names[i - 1 - rand(std::min(i, 1000))];
      NodeDef* n = AddNode(&g, name, "AddN", {a, b, c});
      SetT(n);
      (*n->mutable_attr())["N"].set_i(3);
    }
    names.push_back(std::move(name));
  }
  return g;
}

void BM_CliRunStep(benchmark::State& state, bool chain) {
  const int n = static_cast<int>(state.range(0));
  GraphDef graph = IdentityGraph(n, chain);
  std::vector<std::string> fetches, targets;
  DefaultFetchesAndTargets(graph, &fetches, &targets);
  auto session = Session::Create(std::move(graph), SessionOptions());
  if (!session.ok()) {
    state.SkipWithError(session.status().ToString().c_str());
    return;
  }
  std::atomic<bool> interrupted{false};
  RunOptions options;
  options.cancelled = &interrupted;
  std::vector<Tensor> outputs;
  for (auto _ : state) {
    Status s = (*session)->Run({}, fetches, targets, &outputs, options);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK_CAPTURE(BM_CliRunStep, chain, true)->Arg(1000)->Arg(20000);
BENCHMARK_CAPTURE(BM_CliRunStep, fanout, false)->Arg(10000);

// A DAG file written once per size, removed at exit.
class DagFile {
 public:
  static const DagFile& Get(int n) {
    static std::map<int, std::unique_ptr<DagFile>>* files =
        new std::map<int, std::unique_ptr<DagFile>>();
    auto& f = (*files)[n];
    if (f == nullptr) f.reset(new DagFile(n));
    return *f;
  }
  ~DagFile() { std::filesystem::remove_all(dir_); }
  const std::string& path() const { return path_; }
  const std::string& bytes() const { return bytes_; }
  const std::string& dir() const { return dir_; }
  // The DAG placed onto cpu:0,gpu:0 (written on first use).
  const std::string& placed_path() const;

 private:
  explicit DagFile(int n) {
    dir_ = (std::filesystem::temp_directory_path() /
            ("dfg_cli_bench_" + std::to_string(::getpid()) + "_" +
             std::to_string(n)))
               .string();
    std::filesystem::create_directories(dir_);
    path_ = dir_ + "/dag.pb";
    // DFG_BENCH_GRAPH: an existing .pb instead (bench/cli_bench.sh passes
    // the 1M-node DAG it measures the CLI on; prune's fetches name nodes of
    // an N-node DAG).
    if (const char* given = std::getenv("DFG_BENCH_GRAPH")) {
      std::ifstream in(given, std::ios::binary);
      bytes_.assign(std::istreambuf_iterator<char>(in), {});
    } else {
      DagGraph(n).SerializeToString(&bytes_);
    }
    std::ofstream(path_, std::ios::binary) << bytes_;
  }
  std::string dir_, path_, bytes_;
};

int RunCli(const std::vector<std::string>& args);

const std::string& DagFile::placed_path() const {
  static std::map<std::string, std::string>* placed =
      new std::map<std::string, std::string>();
  std::string& p = (*placed)[path_];
  if (p.empty()) {
    p = dir_ + "/placed.pb";
    RunCli({"place", path_, "--devices", "cpu:0,gpu:0", "-f", "pb", "-o", p});
  }
  return p;
}

int RunCli(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"dfg"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::istringstream in;
  std::ostringstream out, err;
  Io io;
  io.in = &in;
  io.out = &out;
  io.err = &err;
  return DfgMain(static_cast<int>(argv.size()), argv.data(), io);
}

void BM_Cli(benchmark::State& state, const char* sub) {
  const DagFile& file = DagFile::Get(static_cast<int>(state.range(0)));
  const std::string sub_name = sub;
  std::vector<std::string> args{sub_name, file.path()};
  if (sub_name == "convert") {
    args.insert(args.end(), {"-f", "pb", "-o", file.dir() + "/out.pb"});
  } else if (sub_name == "place") {
    args.insert(args.end(), {"--devices", "cpu:0,gpu:0", "-f", "pb", "-o",
                             file.dir() + "/out.pb"});
  } else if (sub_name == "prune") {
    const int n = static_cast<int>(state.range(0));
    for (int k = 1; k <= 10; ++k) {
      int i = k * (n / 11);
      args.push_back("--fetch");
      args.push_back("blk" + std::to_string(i / 1000) + "/n" +
                     std::to_string(i));
    }
    args.insert(args.end(), {"-f", "pb", "-o", file.dir() + "/out.pb"});
  } else {  // partition reads the placed graph
    args = {sub_name, file.placed_path(), "-o", file.dir() + "/parts/"};
  }
  for (auto _ : state) {
    if (RunCli(args) != 0) {
      state.SkipWithError(("dfg " + sub_name + " failed").c_str());
      return;
    }
  }
  state.SetBytesProcessed(state.iterations() * file.bytes().size());
}
BENCHMARK_CAPTURE(BM_Cli, convert, "convert")
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Cli, place, "place")
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Cli, prune, "prune")
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Cli, partition, "partition")
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

void BM_ProtobufParseSerialize(benchmark::State& state) {
  const DagFile& file = DagFile::Get(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    GraphDef g;
    g.ParseFromString(file.bytes());
    std::string out;
    g.SerializeToString(&out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * file.bytes().size());
}
BENCHMARK(BM_ProtobufParseSerialize)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dfg
