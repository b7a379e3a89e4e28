// dfg server: one task of a cluster, TensorFlow's MasterService and
// WorkerService on one port (tf.distribute.Server).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <ostream>
#include <thread>

#include "lib/distributed/cluster_spec.h"
#include "lib/distributed/grpc_server.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

struct ServerFlags {
  std::string cluster, job = "worker", listen, tls_cert, tls_key, tls_ca;
  int task = 0, cpus = 1, threads = 0, intra_threads = 0;
  int busy_poll_us = static_cast<int>(kIdlePoll.count());
};

std::atomic<bool> stop_requested{false};
extern "C" void OnStopSignal(int) { stop_requested.store(true); }

int RunServer(const ServerFlags& f, Context& ctx) {
  auto cluster = ParseClusterSpec(f.cluster);
  if (!cluster.ok()) return ctx.Error(cluster.status());
  ServerOptions options;
  options.worker.cluster = *cluster;
  options.worker.job = f.job;
  options.worker.task = f.task;
  options.worker.num_cpus = f.cpus;
  options.worker.inter_op_threads = f.threads;
  options.worker.intra_op_threads = f.intra_threads;
  options.listen = f.listen;
  options.tls.cert_file = f.tls_cert;
  options.tls.key_file = f.tls_key;
  options.worker.tls.ca_file = f.tls_ca;
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
  CLI::App* sub = AddSubcommand(
      app, ctx, "server",
      "serve one task of a cluster: TensorFlow's gRPC master and worker "
      "services (tf.distribute.Server); no authentication, bind only to a "
      "trusted network",
      [flags](Context& c) { return RunServer(*flags, c); });
  sub->add_option("--cluster", flags->cluster,
                  "JOB=HOST:PORT,HOST:PORT[;JOB2=...] or @clusterspec.json "
                  "(a ClusterSpec file: TensorFlow's ClusterSpec JSON, "
                  "addresses per task; not dfg place's cluster file)")
      ->required();
  sub->add_option("--job", flags->job, "this task's job (default worker)");
  sub->add_option("--task", flags->task, "this task's index (default 0)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--listen", flags->listen,
                  "address to bind (default 127.0.0.1 and the task's port; "
                  "port 0 picks a free one)");
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
  sub->add_option("--busy-poll-us", flags->busy_poll_us,
                  "microseconds the network thread polls after each event "
                  "before it sleeps (default 50; 0: sleep at once)")
      ->check(CLI::Range(0, 1000000));
}

}  // namespace dfg
