#include <type_traits>

#include "lib/distributed/master_service.grpc.pb.h"
#include "lib/distributed/server_call.h"
#include "lib/distributed/services.h"

namespace dfg {
namespace {

namespace tf = tensorflow;
using MasterAsync = tf::MasterService::AsyncService;

template <class Request, class Response>
using Call = ServerCall<MasterAsync, Request, Response>;
template <class Request, class Response>
using Handler = std::function<void(Call<Request, Response>*)>;

class MasterServiceImpl final : public ServiceSet {
 public:
  MasterServiceImpl(Master* master, ThreadPool* pool)
      : master_(master), pool_(pool) {}

  grpc::Service* service() override { return &service_; }

  void Serve(CompletionLoop* loop, grpc::ServerCompletionQueue* cq) override {
    Master* m = master_;
    // Session management calls the workers and waits: on the pool.
    OnPool(loop, cq, &MasterAsync::RequestCreateSession,
           [m](const auto& req, auto* resp) {
             return m->CreateSession(req, resp);
           });
    OnPool(loop, cq, &MasterAsync::RequestExtendSession,
           [m](const auto& req, auto* resp) {
             return m->ExtendSession(req, resp);
           });
    OnPool(loop, cq, &MasterAsync::RequestPartialRunSetup,
           [](const auto&, auto*) {
             return Unimplemented("dfg's master does not run partial runs");
           });
    OnPool(loop, cq, &MasterAsync::RequestCloseSession,
           [m](const auto& req, auto* resp) {
             return m->CloseSession(req, resp);
           });
    OnPool(
        loop, cq, &MasterAsync::RequestListDevices,
        [m](const auto& req, auto* resp) { return m->ListDevices(req, resp); });
    OnPool(loop, cq, &MasterAsync::RequestReset,
           [m](const auto& req, auto* resp) { return m->Reset(req, resp); });
    OnPool(loop, cq, &MasterAsync::RequestMakeCallable,
           [m](const auto& req, auto* resp) {
             return m->MakeCallable(req, resp);
           });
    OnPool(loop, cq, &MasterAsync::RequestReleaseCallable,
           [m](const auto& req, auto* resp) {
             return m->ReleaseCallable(req, resp);
           });
    // A step starts on the loop's thread and finishes when its last part
    // does; a cancelled call cancels it on every worker.
    methods_.Add(
        loop, cq, &MasterAsync::RequestRunStep, true,
        Handler<tf::RunStepRequest, tf::RunStepResponse>([m](auto* call) {
          auto cancel = std::make_shared<StepCancellation>();
          call->OnCancel([cancel] { cancel->Cancel(); });
          m->RunStep(
              &call->request, &call->response, cancel, [call](const Status& s) {
                if (!s.ok() && call->request.store_errors_in_response_body()) {
                  call->response.set_status_code(static_cast<int>(s.code()));
                  call->response.set_status_error_message(
                      std::string(s.message()));
                  call->Finish(Status::Ok());
                } else {
                  call->Finish(s);
                }
              });
        }));
    methods_.Add(loop, cq, &MasterAsync::RequestRunCallable, true,
                 Handler<tf::RunCallableRequest, tf::RunCallableResponse>(
                     [m](auto* call) {
                       auto cancel = std::make_shared<StepCancellation>();
                       call->OnCancel([cancel] { cancel->Cancel(); });
                       m->RunCallable(
                           &call->request, &call->response, cancel,
                           [call](const Status& s) { call->Finish(s); });
                     }));
  }

 private:
  template <class Base, class Request, class Response, class Fn>
  void OnPool(CompletionLoop* loop, grpc::ServerCompletionQueue* cq,
              AsyncRequestFn<Base, Request, Response> request, Fn fn) {
    ThreadPool* pool = pool_;
    methods_.Add<Base, Request, Response>(
        loop, cq, request, false, [pool, fn](auto* call) {
          pool->Schedule(
              [fn, call] { call->Finish(fn(call->request, &call->response)); });
        });
  }

  Master* master_;
  ThreadPool* pool_;
  MasterAsync service_;
  ServedMethods<MasterAsync> methods_{&service_};
};

}  // namespace

std::unique_ptr<ServiceSet> NewMasterService(Master* master, ThreadPool* pool) {
  return std::make_unique<MasterServiceImpl>(master, pool);
}

}  // namespace dfg
