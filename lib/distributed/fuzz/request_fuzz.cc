// libFuzzer target over the server's request decoding: the first byte picks
// a request type of WorkerService or MasterService, the rest is parsed as
// that message and goes through what the server does with it before any
// step runs: RegisterGraph (import, default attrs, per-device partition,
// executors; then DeregisterGraph), RecvTensor's key and incarnation checks
// (the parked receive is cleaned up), RunGraph of unknown handles, worker
// sessions, the tensors of RunStep/RunCallable feeds and of RunGraph sends,
// and RecvTensorResponse decoding. No network: the worker's cluster has
// only itself.
#include <grpcpp/support/byte_buffer.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "lib/distributed/cluster_spec.h"
#include "lib/distributed/tensor_coding.h"
#include "lib/distributed/worker.h"
#include "lib/kernels/memory_budget.h"
#include "lib/proto/master.pb.h"
#include "lib/proto/worker.pb.h"

namespace {

namespace tf = tensorflow;

constexpr int64_t kStepMemoryLimit = int64_t{256} << 20;

dfg::Worker* GetWorker() {
  static dfg::Worker* worker = [] {
    dfg::WorkerOptions options;
    options.cluster = dfg::ParseClusterSpec("worker=127.0.0.1:1").value();
    options.num_cpus = 2;
    options.inter_op_threads = 1;
    options.intra_op_threads = 1;
    // As a server run with --step-memory-limit 256M: what a step's
    // kernels allocate is bounded (a claimed-huge tensor fails cleanly).
    options.step_memory_limit = kStepMemoryLimit;
    return new dfg::Worker(options);
  }();
  return worker;
}

template <typename Request>
bool Parse(const uint8_t* data, size_t size, Request* request) {
  return request->ParseFromArray(data, static_cast<int>(size));
}

// Feeds decoded as the master decodes them: within the step memory limit
// (a feed may claim a shape far bigger than its message).
void Tensors(
    const google::protobuf::RepeatedPtrField<tf::NamedTensorProto>& ts) {
  dfg::MemoryBudgetRef budget(dfg::MemoryBudget::New(kStepMemoryLimit));
  dfg::ScopedMemoryBudget scope(budget.get());
  for (const auto& t : ts) (void)dfg::Tensor::FromProto(t.tensor());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > (1 << 20)) return 0;
  const uint8_t kind = data[0] % 10;
  ++data;
  --size;
  dfg::Worker* worker = GetWorker();
  switch (kind) {
    case 0: {
      tf::RegisterGraphRequest request;
      if (!Parse(data, size, &request)) break;
      request.set_session_handle("");
      request.set_create_worker_session_called(false);
      tf::RegisterGraphResponse response;
      if (worker->RegisterGraph(request, &response).ok()) {
        tf::DeregisterGraphRequest dereg;
        dereg.set_graph_handle(response.graph_handle());
        tf::DeregisterGraphResponse r;
        (void)worker->DeregisterGraph(dereg, &r);
      }
      break;
    }
    case 1: {
      tf::RecvTensorRequest request;
      if (!Parse(data, size, &request)) break;
      worker->RecvTensor(request,
                         [](const dfg::Status&, const dfg::Tensor&, bool) {});
      tf::CleanupGraphRequest cleanup;
      cleanup.set_step_id(request.step_id());
      tf::CleanupGraphResponse r;
      (void)worker->CleanupGraph(cleanup, &r);
      break;
    }
    case 2: {
      tf::RunGraphRequest request;
      if (!Parse(data, size, &request)) break;
      request.set_graph_handle("no such graph " + request.graph_handle());
      tf::RunGraphResponse response;
      worker->RunGraph(&request, &response, [](const dfg::Status&) {});
      Tensors(request.send());
      break;
    }
    case 3: {
      tf::CreateWorkerSessionRequest request;
      if (!Parse(data, size, &request)) break;
      tf::CreateWorkerSessionResponse r;
      if (worker->CreateWorkerSession(request, &r).ok()) {
        tf::DeleteWorkerSessionRequest del;
        del.set_session_handle(request.session_handle());
        tf::DeleteWorkerSessionResponse d;
        (void)worker->DeleteWorkerSession(del, &d);
      }
      break;
    }
    case 4: {
      tf::RunStepRequest request;
      if (Parse(data, size, &request)) Tensors(request.feed());
      break;
    }
    case 5: {
      tf::RunCallableRequest request;
      if (!Parse(data, size, &request)) break;
      dfg::MemoryBudgetRef budget(dfg::MemoryBudget::New(kStepMemoryLimit));
      dfg::ScopedMemoryBudget scope(budget.get());
      for (const auto& t : request.feed()) (void)dfg::Tensor::FromProto(t);
      break;
    }
    case 6: {
      tf::CreateSessionRequest request;
      (void)Parse(data, size, &request);
      break;
    }
    case 7: {
      tf::ExtendSessionRequest request;
      (void)Parse(data, size, &request);
      break;
    }
    case 8: {
      tf::CleanupAllRequest request;
      if (!Parse(data, size, &request)) break;
      tf::CleanupAllResponse r;
      (void)worker->CleanupAll(request, &r);
      break;
    }
    default: {
      grpc::Slice slice(data, size);
      grpc::ByteBuffer buffer(&slice, 1);
      dfg::Tensor value;
      bool is_dead = false;
      (void)dfg::DecodeRecvTensorResponse(&buffer, &value, &is_dead);
      break;
    }
  }
  return 0;
}
