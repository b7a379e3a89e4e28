#include <grpcpp/support/proto_buffer_reader.h>

#include <chrono>
#include <type_traits>

#include "lib/distributed/server_call.h"
#include "lib/distributed/services.h"
#include "lib/distributed/tensor_coding.h"
#include "lib/distributed/worker_service.grpc.pb.h"

namespace dfg {
namespace {

namespace tf = tensorflow;
using WorkerAsync = tf::WorkerService::WithRawMethod_RecvTensor<
    tf::WorkerService::AsyncService>;

template <class Request, class Response>
using Call = ServerCall<WorkerAsync, Request, Response>;
template <class Request, class Response>
using Handler = std::function<void(Call<Request, Response>*)>;

Status NotImplemented(const char* method) {
  return Unimplemented(
      "{} is not implemented by dfg's worker (collectives and tracing are "
      "not supported)",
      method);
}

class WorkerServiceImpl final : public ServiceSet {
 public:
  WorkerServiceImpl(Worker* worker, ThreadPool* pool)
      : worker_(worker), pool_(pool) {}

  grpc::Service* service() override { return &service_; }

  void Serve(CompletionLoop* loop, grpc::ServerCompletionQueue* cq) override {
    Worker* w = worker_;
    ThreadPool* pool = pool_;
    // Quick methods answer on the loop's thread.
    Inline(
        loop, cq, &WorkerAsync::RequestGetStatus,
        [w](const auto& req, auto* resp) { return w->GetStatus(req, resp); });
    Inline(loop, cq, &WorkerAsync::RequestDeleteWorkerSession,
           [w](const auto& req, auto* resp) {
             return w->DeleteWorkerSession(req, resp);
           });
    Inline(loop, cq, &WorkerAsync::RequestCreateWorkerSession,
           [w](const auto& req, auto* resp) {
             return w->CreateWorkerSession(req, resp);
           });
    Inline(loop, cq, &WorkerAsync::RequestDeregisterGraph,
           [w](const auto& req, auto* resp) {
             return w->DeregisterGraph(req, resp);
           });
    Inline(loop, cq, &WorkerAsync::RequestCleanupGraph,
           [w](const auto& req, auto* resp) {
             return w->CleanupGraph(req, resp);
           });
    Inline(
        loop, cq, &WorkerAsync::RequestCleanupAll,
        [w](const auto& req, auto* resp) { return w->CleanupAll(req, resp); });
    // Building executors takes a while: on the pool.
    methods_.Add(
        loop, cq, &WorkerAsync::RequestRegisterGraph, false,
        Handler<tf::RegisterGraphRequest, tf::RegisterGraphResponse>(
            [w, pool](auto* call) {
              pool->Schedule([w, call] {
                call->Finish(w->RegisterGraph(call->request, &call->response));
              });
            }));
    // RunGraph finishes when the step does; a cancelled call aborts it.
    methods_.Add(
        loop, cq, &WorkerAsync::RequestRunGraph, true,
        Handler<tf::RunGraphRequest, tf::RunGraphResponse>([w](auto* call) {
          const int64_t step_id = call->request.step_id();
          w->RunGraph(&call->request, &call->response, [call](const Status& s) {
            if (!s.ok() && call->request.store_errors_in_response_body()) {
              call->response.set_status_code(static_cast<int>(s.code()));
              call->response.set_status_error_message(std::string(s.message()));
              call->Finish(Status::Ok());
            } else {
              call->Finish(s);
            }
          });
          call->OnCancel([w, step_id] {
            w->AbortStep(step_id, Cancelled("Step {} was cancelled", step_id));
          });
        }));
    methods_.Add(loop, cq, &WorkerAsync::RequestRecvTensor, true,
                 Handler<grpc::ByteBuffer, grpc::ByteBuffer>(
                     [w](auto* call) { RecvTensor(w, call); }));
    NotServed(loop, cq, &WorkerAsync::RequestLogging, "Logging");
    NotServed(loop, cq, &WorkerAsync::RequestTracing, "Tracing");
    NotServed(loop, cq, &WorkerAsync::RequestRecvBuf, "RecvBuf");
    NotServed(loop, cq, &WorkerAsync::RequestGetStepSequence,
              "GetStepSequence");
    NotServed(loop, cq, &WorkerAsync::RequestCompleteGroup, "CompleteGroup");
    NotServed(loop, cq, &WorkerAsync::RequestCompleteInstance,
              "CompleteInstance");
    NotServed(loop, cq, &WorkerAsync::RequestMarkRecvFinished,
              "MarkRecvFinished");
  }

 private:
  template <class Base, class Request, class Response, class Fn>
  void Inline(CompletionLoop* loop, grpc::ServerCompletionQueue* cq,
              AsyncRequestFn<Base, Request, Response> request, Fn fn) {
    methods_.Add<Base, Request, Response>(
        loop, cq, request, false,
        [fn](auto* call) { call->Finish(fn(call->request, &call->response)); });
  }
  template <class Base, class Request, class Response>
  void NotServed(CompletionLoop* loop, grpc::ServerCompletionQueue* cq,
                 AsyncRequestFn<Base, Request, Response> request,
                 const char* name) {
    methods_.Add<Base, Request, Response>(
        loop, cq, request, false,
        [name](auto* call) { call->Finish(NotImplemented(name)); });
  }

  // RecvTensor answers with hand-encoded bytes, when the tensor is there.
  static void RecvTensor(Worker* w,
                         Call<grpc::ByteBuffer, grpc::ByteBuffer>* call) {
    tf::RecvTensorRequest req;
    grpc::ProtoBufferReader reader(&call->request);
    if (!req.ParseFromZeroCopyStream(&reader)) {
      call->Finish(InvalidArgument("RecvTensorRequest does not parse"));
      return;
    }
    // A caller that gives up (cancels, or its deadline passes) must not
    // leave the call waiting for a tensor that may never come.
    call->OnCancel([w, step_id = req.step_id(), key = req.rendezvous_key()] {
      w->RecvTensorCancelled(step_id, key);
    });
    w->RecvTensor(
        req, [call](const Status& s, const Tensor& value, bool is_dead) {
          if (s.ok()) {
            auto now = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
            EncodeRecvTensorResponse(value, is_dead, now, &call->response);
          }
          call->Finish(s);
        });
  }

  Worker* worker_;
  ThreadPool* pool_;
  WorkerAsync service_;
  ServedMethods<WorkerAsync> methods_{&service_};
};

}  // namespace

std::unique_ptr<ServiceSet> NewWorkerService(Worker* worker, ThreadPool* pool) {
  return std::make_unique<WorkerServiceImpl>(worker, pool);
}

}  // namespace dfg
