// dfg run: prune, place, partition and execute a graph on CPU devices
// (TensorFlow's DirectSession::Run); a SavedModel is loaded first as
// TensorFlow's LoadSavedModel does (restore, init op) and may run one of its
// signatures.
#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>

#include "subcommands/completion_script.h"
#include "subcommands/run/master.h"
#include "subcommands/run/outputs.h"
#include "subcommands/run/repeat.h"
#include "subcommands/run/step.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

// Most flags land in the library's options as they are.
struct RunFlags {
  InputFlags in;
  StepRequest step;
  LocalRunOptions run;
  RunOutputOptions output;
  MasterOptions master;  // with --master: the steps run on a cluster
  std::vector<std::string> devices, init_targets, final_targets;
  std::string dump_partitions;
  bool no_soft_placement = false;
  bool no_optimize = false;
};

std::atomic<bool> interrupted{false};
extern "C" void OnSigint(int) { interrupted.store(true); }

int RunRun(RunFlags f, Context& ctx) {
  if (Status s = CheckStepSyntax(f.step); !s.ok())
    return ctx.Usage(s.message());
  if (!CheckDevicesGiven(ctx, f.devices)) return ctx.exit_code;
  LoadedGraph loaded;
  if (!LoadInput(ctx, f.in, &loaded)) return ctx.exit_code;
  f.step.fetches = SplitList(f.step.fetches);
  f.step.targets = SplitList(f.step.targets);
  auto step = PrepareStep(loaded, f.step);
  if (!step.ok()) return ctx.Error(step.status());
  for (const std::string& note : step->notes)
    *ctx.io.err << "dfg run: note: " << note << "\n";
  if (!f.output.output_dir.empty()) {
    Status names = CheckFetchFileNames(step->fetch_names);
    if (!names.ok()) return ctx.Error(names);
  }
  const bool local = f.master.target.empty();
  if (!local) {
    std::string note;
    auto target = ResolveMasterTarget(f.master.target, &note);
    if (!target.ok()) return ctx.Error(target.status());
    if (!note.empty()) *ctx.io.err << "dfg run: note: " << note << "\n";
    f.master.target = *target;
  }
  if (!local && (!f.dump_partitions.empty() || !f.devices.empty())) {
    *ctx.io.err << "dfg run: error: --master runs on the cluster's devices: "
                   "--devices and --dump-partitions do not work with it\n";
    return kExitUsage;
  }
  f.master.checkpoint = f.run.load.checkpoint;
  LocalRunOptions& options = f.run;
  options.load.session.devices = SplitList(f.devices);
  options.load.session.allow_soft_placement = !f.no_soft_placement;
  f.master.allow_soft_placement = !f.no_soft_placement;
  options.load.session.optimize = !f.no_optimize;
  options.load.session.keep_partitions = !f.dump_partitions.empty();
  f.master.optimize = !f.no_optimize;
  options.load.run.cancelled = &interrupted;
  options.load.export_dir = loaded.export_dir;
  options.repeat.init_targets = SplitList(f.init_targets);
  options.repeat.final_targets = SplitList(f.final_targets);
  if (ctx.io.stderr_is_terminal)
    options.repeat.progress = StepProgress(*ctx.io.err);
  options.collect_stats = !f.output.trace.empty() || f.output.stats;
  options.repeat.run = options.load.run;  // every step's, as the init step's
  interrupted.store(false);
  auto old_handler = std::signal(SIGINT, OnSigint);
  auto outcome = local ? RunLocally(std::move(loaded), *step, options)
                       : RunOnMaster(std::move(loaded), *step, f.master,
                                     options.repeat, options.collect_stats);
  std::signal(SIGINT, old_handler);
  if (!outcome.ok())
    return ctx.Error(BlameKeys(*step, outcome.status()),
                     local ? InputName(f.in) : f.master.target);
  if (!f.dump_partitions.empty()) {
    Status w = WritePartitionFiles(f.dump_partitions, GraphFormat::kPbtxt,
                                   outcome->session->last_partitions());
    if (!w.ok()) return ctx.Error(w);
  }
  f.output.latencies = options.repeat.repeat > 1 || options.repeat.warmup > 0;
  Status w =
      WriteRunOutputs(*outcome, *step, f.output, *ctx.io.out, *ctx.io.err);
  if (!w.ok()) return ctx.Error(w);
  LeaveToExit(ctx, &outcome->session);  // its executors hold every node
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
  HintFeed(sub->add_option(
      "--feed", flags->step.feeds,
      "NAME=FILE.npy, NAME=FILE.npz:KEY, NAME=JSON literal or "
      "NAME=zeros|ones|random[:SEED] (NAME: a tensor, or the signature's "
      "input key); arrays of another dtype are converted when they fit"));
  sub->add_option("--batch", flags->step.batch,
                  "dimension 0 of zeros/ones/random feeds when the input "
                  "leaves it unknown")
      ->check(CLI::PositiveNumber);
  sub->add_option("--examples", flags->step.examples,
                  "KEY=JSON: a list of feature dicts fed as serialized "
                  "tf.Example protos");
  HintFetch(sub->add_option(
      "--fetch", flags->step.fetches,
      "tensors or output keys to fetch (default: the signature's "
      "outputs, else unconsumed outputs)"));
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
  HintFile(sub->add_option("--checkpoint", flags->run.load.checkpoint,
                           "restore variables from checkpoint PREFIX (a "
                           ".meta + checkpoint pair)"));
  HintDirectory(sub->add_option("--output-dir", flags->output.output_dir,
                                "write each fetch as DIR/<name>.npy"));
  sub->add_flag("--json", flags->output.json,
                "print the fetched tensors as JSON on stdout");
  HintAtFile(sub->add_option("--devices", flags->devices,
                             "devices, e.g. cpu:0,cpu:1 (default cpu:0)"));
  sub->add_flag("--no-soft-placement", flags->no_soft_placement,
                "fail instead of moving nodes to a CPU");
  sub->add_flag("--no-optimize", flags->no_optimize,
                "run the graph as written: no function inlining, constant "
                "folding or fusion (see dfg optimize)");
  sub->add_option("--threads", flags->run.load.session.inter_op_threads,
                  "inter-op threads (default: inline on the calling thread, "
                  "or cores when an op may wait for another; 1 = inline)");
  sub->add_option("--intra-threads", flags->run.load.session.intra_op_threads,
                  "intra-op threads (default: cores)");
  sub->add_option("--timeout-ms", flags->run.load.run.timeout_ms,
                  "cancel the step after MS milliseconds (--master: also how "
                  "long to wait for the master to come up)");
  sub->add_option("--repeat", flags->run.repeat.repeat,
                  "run the step N times and print latencies")
      ->check(CLI::PositiveNumber);
  sub->add_option("--warmup", flags->run.repeat.warmup,
                  "steps run before the timed ones")
      ->check(CLI::NonNegativeNumber);
  HintFile(sub->add_option("--trace", flags->output.trace,
                           "write a Chrome trace-event JSON of the last step"));
  sub->add_flag("--stats", flags->output.stats,
                "print time per op type and the slowest nodes");
  HintDirectory(sub->add_option("--dump-partitions", flags->dump_partitions,
                                "write the partition graphs that ran to DIR"));
  // Completion offers tf_config, the one value it can know.
  HintChoices(
      sub->add_option("--master", flags->master.target,
                      "grpc://HOST:PORT: run on a cluster of dfg (or "
                      "TensorFlow) servers through that master; tf_config: "
                      "the master the TF_CONFIG environment variable names"),
      {std::string(kTfConfigMaster)});
  HintFile(sub->add_option(
      "--tls-ca", flags->master.tls_ca,
      "with --master: PEM CA certificate; talk TLS to the master"));
  HintFile(sub->add_option("--tls-cert", flags->master.tls_cert,
                           "with --tls-ca: PEM client certificate, for a "
                           "master that requires one (mutual TLS)"));
  HintFile(sub->add_option("--tls-key", flags->master.tls_key,
                           "PEM private key of --tls-cert"));
}

}  // namespace dfg
