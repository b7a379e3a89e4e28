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
// `&MasterAsync::RequestX` (declared in a base class of MasterAsync).
template <class Base, class Request, class Response>
using RequestFn = void (Base::*)(grpc::ServerContext*, Request*,
                                 grpc::ServerAsyncResponseWriter<Response>*,
                                 grpc::CompletionQueue*,
                                 grpc::ServerCompletionQueue*, void*);

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
    Add(loop, cq, &MasterAsync::RequestRunStep, true,
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
    Add(loop, cq, &MasterAsync::RequestRunCallable, true,
        Handler<tf::RunCallableRequest, tf::RunCallableResponse>(
            [m](auto* call) {
              auto cancel = std::make_shared<StepCancellation>();
              call->OnCancel([cancel] { cancel->Cancel(); });
              m->RunCallable(&call->request, &call->response, cancel,
                             [call](const Status& s) { call->Finish(s); });
            }));
  }

 private:
  template <class Base, class Request, class Response>
  void Add(CompletionLoop* loop, grpc::ServerCompletionQueue* cq,
           RequestFn<Base, Request, Response> request, bool cancellable,
           std::type_identity_t<Handler<Request, Response>> handler) {
    auto method = std::make_unique<typename Call<Request, Response>::Method>();
    method->service = &service_;
    method->request = request;  // to a member of the derived class
    method->handler = std::move(handler);
    method->cancellable = cancellable;
    method->loop = loop;
    method->cq = cq;
    Call<Request, Response>::Await(method.get());
    methods_.push_back(std::shared_ptr<void>(std::move(method)));
  }
  template <class Base, class Request, class Response, class Fn>
  void OnPool(CompletionLoop* loop, grpc::ServerCompletionQueue* cq,
              RequestFn<Base, Request, Response> request, Fn fn) {
    ThreadPool* pool = pool_;
    Add<Base, Request, Response>(
        loop, cq, request, false, [pool, fn](auto* call) {
          pool->Schedule(
              [fn, call] { call->Finish(fn(call->request, &call->response)); });
        });
  }

  Master* master_;
  ThreadPool* pool_;
  MasterAsync service_;
  std::vector<std::shared_ptr<void>> methods_;
};

}  // namespace

std::unique_ptr<ServiceSet> NewMasterService(Master* master, ThreadPool* pool) {
  return std::make_unique<MasterServiceImpl>(master, pool);
}

}  // namespace dfg
