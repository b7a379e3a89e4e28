// dfg server: one task of a cluster, TensorFlow's MasterService and
// WorkerService on one port (tf.distribute.Server).
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "lib/distributed/cluster_spec.h"
#include "lib/distributed/grpc_server.h"
#include "lib/distributed/tf_config.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

struct ServerFlags {
  std::string cluster, job = "worker", listen, tls_cert, tls_key, tls_ca,
                       tls_client_ca;
  std::vector<std::string> allow_paths;
  int task = 0, cpus = 1, threads = 0, intra_threads = 0;
  int busy_poll_us = static_cast<int>(kIdlePoll.count());
  bool job_given = false, task_given = false, print_config = false;
  std::optional<int64_t> step_memory_limit;  // bytes; 0: none
};

// Half of the machine's memory: one step cannot take the server down with it.
int64_t DefaultStepMemoryLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<int64_t>(pages) * page_size / 2;
}

std::atomic<bool> stop_requested{false};
extern "C" void OnStopSignal(int) { stop_requested.store(true); }

// The task from the flags and TF_CONFIG, with what came from where on
// stderr; the security warning when it listens beyond loopback in clear.
StatusOr<ServerTask> ResolveTask(const ServerFlags& f, Context& ctx) {
  ServerTaskFlags flags;
  flags.cluster = f.cluster;
  if (f.job_given) flags.job = f.job;
  if (f.task_given) flags.task = f.task;
  flags.listen = f.listen;
  DFG_ASSIGN_OR_RETURN(ServerTask task,
                       ResolveServerTask(flags, TfConfigFromEnvironment()));
  for (const std::string& note : task.notes) {
    *ctx.io.err << "dfg server: note: " << note << "\n";
  }
  if (!IsLoopbackAddress(task.listen) &&
      (f.tls_cert.empty() || f.tls_client_ca.empty())) {
    ctx.Warn(fmt::format(
        "{} is not a loopback address and {}: anyone who can reach it can "
        "run any graph here (files: only under --allow-path); keep the port "
        "on a trusted network, or require client certificates "
        "(--tls-cert/--tls-key/--tls-client-ca)",
        task.listen,
        f.tls_cert.empty() ? "there is no TLS"
                           : "clients are not authenticated (TLS without "
                             "--tls-client-ca)"));
  }
  return task;
}

int RunServer(const ServerFlags& f, Context& ctx) {
  if (f.cluster.empty() && !TfConfigFromEnvironment()) {
    return ctx.Usage(
        "--cluster is required (or a TF_CONFIG environment variable, as "
        "TensorFlow's TFConfigClusterResolver reads it)");
  }
  auto task = ResolveTask(f, ctx);
  if (!task.ok()) return ctx.Error(task.status());
  if (f.print_config) {
    *ctx.io.out << ServerTaskJson(*task) << std::flush;
    return kExitOk;
  }
  ServerOptions options;
  options.worker.cluster = task->cluster;
  options.worker.job = task->job;
  options.worker.task = task->task;
  options.worker.num_cpus = f.cpus;
  options.worker.inter_op_threads = f.threads;
  options.worker.intra_op_threads = f.intra_threads;
  options.worker.step_memory_limit =
      f.step_memory_limit.value_or(DefaultStepMemoryLimit());
  options.listen = task->listen;
  options.tls.cert_file = f.tls_cert;
  options.tls.key_file = f.tls_key;
  options.tls.client_ca_file = f.tls_client_ca;
  options.worker.tls.ca_file = f.tls_ca;
  if (!f.tls_ca.empty()) {
    // Calls to the other tasks present this task's certificate, for peers
    // that require client certificates.
    options.worker.tls.cert_file = f.tls_cert;
    options.worker.tls.key_file = f.tls_key;
  }
  auto policy = ServerFilePolicy(f.allow_paths);
  if (!policy.ok()) return ctx.Error(policy.status());
  options.worker.file_policy = *std::move(policy);
  options.busy_poll = std::chrono::microseconds(f.busy_poll_us);
  stop_requested.store(false);
  auto old_term = std::signal(SIGTERM, OnStopSignal);
  auto old_int = std::signal(SIGINT, OnStopSignal);
  auto server = GrpcServer::Start(options);
  if (!server.ok()) {
    std::signal(SIGTERM, old_term);
    std::signal(SIGINT, old_int);
    return ctx.Error(server.status());
  }
  *ctx.io.out << fmt::format("{} listening on {}\n", (*server)->task_name(),
                             (*server)->bound_address())
              << std::flush;
  while (!stop_requested.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  (*server)->Shutdown();
  std::signal(SIGTERM, old_term);
  std::signal(SIGINT, old_int);
  return kExitOk;
}

}  // namespace

void RegisterServer(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<ServerFlags>();
  auto given = std::make_shared<std::pair<CLI::Option*, CLI::Option*>>();
  CLI::App* sub = AddSubcommand(
      app, ctx, "server",
      "serve one task of a cluster: TensorFlow's gRPC master and worker "
      "services (tf.distribute.Server); clients are not authenticated "
      "unless --tls-client-ca (mutual TLS): bind only to a trusted network",
      [flags, given](Context& c) {
        flags->job_given = given->first->count() > 0;
        flags->task_given = given->second->count() > 0;
        return RunServer(*flags, c);
      });
  sub->add_option("--cluster", flags->cluster,
                  "JOB=HOST:PORT,HOST:PORT[;JOB2=...] or @clusterspec.json "
                  "(a ClusterSpec file: TensorFlow's ClusterSpec JSON, "
                  "addresses per task; not dfg place's cluster file); "
                  "default: the TF_CONFIG environment variable's cluster");
  given->first = sub->add_option(
      "--job", flags->job,
      "this task's job (default: TF_CONFIG's task.type, else worker)");
  given->second =
      sub->add_option(
             "--task", flags->task,
             "this task's index (default: TF_CONFIG's task.index, else 0)")
          ->check(CLI::NonNegativeNumber);
  sub->add_option("--listen", flags->listen,
                  "address to bind (default 127.0.0.1 and the task's port, "
                  "or 0.0.0.0 when TF_CONFIG gives the task a non-loopback "
                  "host; port 0 picks a free one)");
  sub->add_flag("--print-config", flags->print_config,
                "print the task as JSON (cluster, task, listen address, the "
                "master `dfg run --master tf_config` picks) and exit");
  sub->add_option("--cpus", flags->cpus, "CPU devices of this task (default 1)")
      ->check(CLI::Range(1, 64));
  sub->add_option("--threads", flags->threads,
                  "inter-op threads (default: cores)");
  sub->add_option("--intra-threads", flags->intra_threads,
                  "intra-op threads (default: cores)");
  sub->add_option("--tls-cert", flags->tls_cert,
                  "PEM certificate chain: serve TLS (with --tls-key)");
  sub->add_option("--tls-key", flags->tls_key,
                  "PEM private key for --tls-cert");
  sub->add_option("--tls-ca", flags->tls_ca,
                  "PEM CA certificate: talk TLS to the other tasks");
  sub->add_option("--step-memory-limit", flags->step_memory_limit,
                  "bytes of tensors one step may hold at once on this task "
                  "(its feeds and what its kernels allocate; suffixes K, M, "
                  "G); more fails the step with ResourceExhausted (default: "
                  "half the machine's memory; 0: no limit)")
      ->transform(CLI::AsSizeValue(false));
  sub->add_option("--tls-client-ca", flags->tls_client_ca,
                  "PEM CA certificate: accept only clients (and other "
                  "tasks) presenting a certificate it signed (mutual TLS; "
                  "needs --tls-cert/--tls-key)");
  sub->add_option("--allow-path", flags->allow_paths,
                  "directory the file ops of clients' graphs (SaveV2, "
                  "RestoreV2, ReadFile, WriteFile, text-file tables, ...) "
                  "may touch, with what is beneath it; repeatable (default: "
                  "none, every such op fails with PermissionDenied)");
  sub->add_option("--busy-poll-us", flags->busy_poll_us,
                  "microseconds the network thread polls after each event "
                  "before it sleeps (default 50; 0: sleep at once)")
      ->check(CLI::Range(0, 1000000));
}

}  // namespace dfg
