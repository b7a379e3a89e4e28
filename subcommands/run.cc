// dfg run: prune, place, partition and execute a graph on CPU devices
// (TensorFlow's DirectSession::Run); a SavedModel is loaded first as
// TensorFlow's LoadSavedModel does (restore, init op) and may run one of its
// signatures.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <ostream>

#include "lib/exec/step_stats.h"
#include "lib/savedmodel/loader.h"
#include "lib/savedmodel/runner.h"
#include "lib/savedmodel/step.h"
#include "lib/tensor_io/tensor_io.h"
#include "subcommands/completion_script.h"
#include "subcommands/run_master.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

struct RunFlags {
  InputFlags in;
  StepRequest step;
  std::vector<std::string> devices, init_targets, final_targets;
  std::string output_dir, trace, dump_partitions, checkpoint, master, tls_ca;
  bool json = false, stats = false, no_soft_placement = false;
  int threads = 0, intra_threads = 0, repeat = 1, warmup = 0;
  int64_t timeout_ms = 0;
};

std::atomic<bool> interrupted{false};
extern "C" void OnSigint(int) { interrupted.store(true); }

int RunRun(RunFlags f, Context& ctx) {
  for (const auto* specs : {&f.step.feeds, &f.step.examples}) {
    for (const std::string& spec : *specs) {
      if (spec.find('=') == std::string::npos || spec[0] == '=') {
        return ctx.Usage(fmt::format(
            "{} takes {}, got '{}'",
            specs == &f.step.feeds ? "--feed" : "--examples",
            specs == &f.step.feeds ? "TENSOR=FILE" : "KEY=JSON", spec));
      }
    }
  }
  LoadedGraph loaded;
  if (!LoadInput(ctx, f.in, &loaded)) return ctx.exit_code;
  const std::string where = InputName(f.in);
  f.step.fetches = SplitList(f.step.fetches);
  f.step.targets = SplitList(f.step.targets);
  auto step = PrepareStep(loaded, f.step);
  if (!step.ok()) return ctx.Error(step.status());

  if (!f.master.empty() &&
      (!f.dump_partitions.empty() || !f.devices.empty() ||
       !f.checkpoint.empty() || !loaded.export_dir.empty())) {
    return ctx.Usage(
        "--master runs a GraphDef on the cluster's devices: --devices, "
        "--dump-partitions, --checkpoint and SavedModel directories do not "
        "work with it yet");
  }
  interrupted.store(false);
  auto old_handler = std::signal(SIGINT, OnSigint);
  LoadOptions load;
  load.session.devices = SplitList(f.devices);
  load.session.allow_soft_placement = !f.no_soft_placement;
  load.session.inter_op_threads = f.threads;
  load.session.intra_op_threads = f.intra_threads;
  load.run.timeout_ms = f.timeout_ms;
  load.run.cancelled = &interrupted;
  load.export_dir = loaded.export_dir;
  load.checkpoint = f.checkpoint;
  // A local session (the SavedModel loaded into it), or the cluster's master.
  std::unique_ptr<Session> session;
  std::vector<NodeStat> remote_stats;  // --master: from every task
  StatusOr<StepFn> run_step = StepFn();
  if (f.master.empty()) {
    auto loaded_session =
        LoadSavedModel(std::move(loaded.graph), loaded.meta_graph, load);
    if (loaded_session.ok()) session = std::move(loaded_session).value();
    run_step = session ? StatusOr<StepFn>(SessionStepFn(*session))
                       : StatusOr<StepFn>(loaded_session.status());
  } else {
    run_step = MasterStepFn(f.master, f.tls_ca, std::move(loaded.graph),
                            !f.no_soft_placement, &remote_stats);
  }
  StepStatsCollector collector;
  RepeatOptions repeat;
  repeat.repeat = f.repeat;
  repeat.warmup = f.warmup;
  repeat.run = load.run;
  repeat.init_targets = SplitList(f.init_targets);
  repeat.final_targets = SplitList(f.final_targets);
  if (!f.trace.empty() || f.stats) repeat.last_step_observer = &collector;
  if (ctx.io.stderr_is_terminal) {
    repeat.progress = [&ctx](int i, int steps) {
      if (steps > 100 && i % (steps / 20) == 0)
        *ctx.io.err << fmt::format("\rstep {}/{}", i + 1, steps) << std::flush;
    };
  }
  StatusOr<StepResults> results =
      run_step.ok() ? RunRepeated(*run_step, *step, repeat) : run_step.status();
  std::signal(SIGINT, old_handler);
  if (!results.ok()) {
    return ctx.Error(results.status(), f.master.empty() ? where : f.master);
  }

  if (!f.dump_partitions.empty()) {
    Status w = WritePartitionFiles(f.dump_partitions, GraphFormat::kPbtxt,
                                   session->last_partitions());
    if (!w.ok()) return ctx.Error(w);
  }
  std::vector<NodeStat> stats =
      session ? collector.Take() : std::move(remote_stats);
  if (!f.trace.empty()) {
    std::vector<std::string> devices;  // --master: as the tasks report them
    if (session) devices = session->devices();
    Status w = WriteFileAtomically(f.trace, ChromeTraceJson(stats, devices));
    if (!w.ok()) return ctx.Error(w);
  }
  if (f.stats) *ctx.io.err << StatsTable(stats);
  if (f.repeat > 1 || f.warmup > 0)
    *ctx.io.err << LatencyLine(results->latencies_us);
  if (!f.output_dir.empty()) {
    Status w =
        WriteTensorsToDir(f.output_dir, step->fetch_names, results->outputs);
    return w.ok() ? kExitOk : ctx.Error(w);
  }
  *ctx.io.out << FormatOutputs(step->fetch_names, results->outputs, f.json);
  return kExitOk;
}

}  // namespace

void RegisterRun(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* sub = AddSubcommand(
      app, ctx, "run",
      "prune, place, partition and execute on CPU (DirectSession::Run)",
      [flags](Context& c) { return RunRun(*flags, c); });
  AddInputFlags(sub, &flags->in);
  HintAssignFile(sub->add_option(
      "--feed", flags->step.feeds,
      "NAME=FILE.npy, NAME=FILE.npz:KEY or NAME=JSON literal (NAME: a "
      "tensor, or the signature's input key)"));
  sub->add_option("--examples", flags->step.examples,
                  "KEY=JSON: a list of feature dicts fed as serialized "
                  "tf.Example protos");
  sub->add_option("--fetch", flags->step.fetches,
                  "tensors or output keys to fetch (default: the signature's "
                  "outputs, else unconsumed outputs)");
  sub->add_option("--target", flags->step.targets,
                  "nodes to run without fetching");
  sub->add_option("--init-target", flags->init_targets,
                  "nodes to run once before the step (variable initializers; "
                  "a plain graph's init_all_tables runs by itself)");
  sub->add_option("--final-target", flags->final_targets,
                  "nodes to run once after the last step (a saver's save op)");
  HintSignature(sub->add_option(
      "--signature", flags->step.signature,
      "SavedModel: run this signature (default: serving_default when no "
      "--fetch or --target is given)"));
  HintFile(sub->add_option("--checkpoint", flags->checkpoint,
                           "restore variables from checkpoint PREFIX (a "
                           ".meta + checkpoint pair)"));
  HintDirectory(sub->add_option("--output-dir", flags->output_dir,
                                "write each fetch as DIR/<name>.npy"));
  sub->add_flag("--json", flags->json, "print the fetched tensors as JSON");
  HintAtFile(sub->add_option("--devices", flags->devices,
                             "devices, e.g. cpu:0,cpu:1 (default cpu:0)"));
  sub->add_flag("--no-soft-placement", flags->no_soft_placement,
                "fail instead of moving nodes to a CPU");
  sub->add_option("--threads", flags->threads,
                  "inter-op threads (default: cores; 1 = inline)");
  sub->add_option("--intra-threads", flags->intra_threads,
                  "intra-op threads (default: cores)");
  sub->add_option("--timeout-ms", flags->timeout_ms,
                  "cancel the step after MS milliseconds");
  sub->add_option("--repeat", flags->repeat,
                  "run the step N times and print latencies")
      ->check(CLI::PositiveNumber);
  sub->add_option("--warmup", flags->warmup, "steps run before the timed ones")
      ->check(CLI::NonNegativeNumber);
  HintFile(sub->add_option("--trace", flags->trace,
                           "write a Chrome trace-event JSON of the last step"));
  sub->add_flag("--stats", flags->stats,
                "print time per op type and the slowest nodes");
  HintDirectory(sub->add_option("--dump-partitions", flags->dump_partitions,
                                "write the partition graphs that ran to DIR"));
  sub->add_option("--master", flags->master,
                  "grpc://HOST:PORT: run on a cluster of dfg (or TensorFlow) "
                  "servers through that master");
  HintFile(sub->add_option(
      "--tls-ca", flags->tls_ca,
      "with --master: PEM CA certificate; talk TLS to the master"));
}

}  // namespace dfg
