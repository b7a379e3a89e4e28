// One served unary call on a CompletionLoop (gRPC's async API): requested
// before it arrives, handed to its handler on the loop's thread, finished
// from any thread. Internal to lib/distributed's services.
#ifndef DFG_LIB_DISTRIBUTED_SERVER_CALL_H_
#define DFG_LIB_DISTRIBUTED_SERVER_CALL_H_

#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/distributed/completion_loop.h"
#include "lib/distributed/grpc_util.h"

namespace dfg {

template <class Service, class Request, class Response>
class ServerCall : public CqTag {
 public:
  using RequestFn = void (Service::*)(
      grpc::ServerContext*, Request*,
      grpc::ServerAsyncResponseWriter<Response>*, grpc::CompletionQueue*,
      grpc::ServerCompletionQueue*, void*);
  // A method: how to request its calls and what to do with one. The
  // handler runs on the loop's thread and must not block; it calls Finish
  // (now or later, from any thread).
  struct Method {
    Service* service;
    RequestFn request;
    std::function<void(ServerCall*)> handler;
    bool cancellable = false;  // the handler uses OnCancel
    CompletionLoop* loop;
    grpc::ServerCompletionQueue* cq;
  };

  // Waits for the method's next call.
  static void Await(const Method* method) {
    auto* call = new ServerCall(method);
    bool started = method->loop->Start([&](grpc::CompletionQueue*) {
      if (method->cancellable) call->ctx_.AsyncNotifyWhenDone(&call->done_);
      (method->service->*method->request)(&call->ctx_, &call->request,
                                          &call->responder_, method->cq,
                                          method->cq, call);
    });
    if (!started) delete call;
  }

  void Finish(const Status& status) {
    bool started = method_->loop->Start([&](grpc::CompletionQueue*) {
      responder_.Finish(response, ToGrpcStatus(status), this);
    });
    (void)started;  // not started: the server is gone, and so is the call
  }

  // Runs `action` (on the loop's thread) if the caller cancels the call,
  // at once if it already did.
  void OnCancel(std::function<void()> action) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!cancelled_) {
        on_cancel_ = std::move(action);
        return;
      }
    }
    action();
  }

  Request request;
  Response response;

 private:
  explicit ServerCall(const Method* method)
      : method_(method), responder_(&ctx_), done_(this) {}

  // The call ended (finished or cancelled).
  struct DoneTag : public CqTag {
    explicit DoneTag(ServerCall* c) : call(c) {}
    void OnEvent(bool) override {
      std::function<void()> action;
      {
        std::lock_guard<std::mutex> lock(call->mu_);
        call->cancelled_ = call->ctx_.IsCancelled();
        if (call->cancelled_) action = std::move(call->on_cancel_);
        call->on_cancel_ = nullptr;
      }
      if (action) action();
      call->done_seen_ = true;
      if (call->finished_) delete call;
    }
    ServerCall* call;
  };

  void OnEvent(bool ok) override {
    if (!requested_) {
      requested_ = true;
      if (!ok) {  // the server shuts down: no call, no done tag
        delete this;
        return;
      }
      Await(method_);  // the next call of this method
      method_->handler(this);
      return;
    }
    finished_ = true;
    if (done_seen_ || !method_->cancellable) delete this;
  }

  const Method* method_;
  grpc::ServerContext ctx_;
  grpc::ServerAsyncResponseWriter<Response> responder_;
  DoneTag done_;
  // Touched on the loop's thread only.
  bool requested_ = false;
  bool finished_ = false;
  bool done_seen_ = false;
  std::mutex mu_;
  bool cancelled_ = false;           // guarded by mu_
  std::function<void()> on_cancel_;  // guarded by mu_
};

// `&Service::RequestX`, which the generated code declares in a base class of
// the service.
template <class Base, class Request, class Response>
using AsyncRequestFn = void (Base::*)(
    grpc::ServerContext*, Request*, grpc::ServerAsyncResponseWriter<Response>*,
    grpc::CompletionQueue*, grpc::ServerCompletionQueue*, void*);

// The methods one async service serves, each waiting for its next call on a
// loop; owns their descriptions, which must outlive the loop's calls.
template <class Service>
class ServedMethods {
 public:
  template <class Request, class Response>
  using Handler = std::function<void(ServerCall<Service, Request, Response>*)>;

  explicit ServedMethods(Service* service) : service_(service) {}

  template <class Base, class Request, class Response>
  void Add(CompletionLoop* loop, grpc::ServerCompletionQueue* cq,
           AsyncRequestFn<Base, Request, Response> request, bool cancellable,
           std::type_identity_t<Handler<Request, Response>> handler) {
    using Call = ServerCall<Service, Request, Response>;
    auto method = std::make_unique<typename Call::Method>();
    method->service = service_;
    method->request = request;  // to a member of the derived class
    method->handler = std::move(handler);
    method->cancellable = cancellable;
    method->loop = loop;
    method->cq = cq;
    Call::Await(method.get());
    methods_.push_back(std::shared_ptr<void>(std::move(method)));
  }

 private:
  Service* service_;
  std::vector<std::shared_ptr<void>> methods_;
};

}  // namespace dfg

#endif  // DFG_LIB_DISTRIBUTED_SERVER_CALL_H_
