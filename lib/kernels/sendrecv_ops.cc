// Runtime kernels that use the step's services: _Send/_HostSend and
// _Recv/_HostRecv through the rendezvous, _Arg/_Retval through the call
// frame.
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// The attrs shared by _Send and _Recv, and the key for frame 0:0.
class TransferKey {
 public:
  explicit TransferKey(OpKernelConstruction* ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("send_device", &send_device_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("recv_device", &recv_device_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("tensor_name", &tensor_name_));
    int64_t incarnation = 0;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->GetAttr("send_device_incarnation", &incarnation));
    incarnation_ = static_cast<uint64_t>(incarnation);
    DFG_OP_REQUIRES_OK(ctx, ParseKey(Build(FrameAndIter()), &root_key_));
  }

  std::string Build(FrameAndIter frame_iter) const {
    return CreateKey(send_device_, incarnation_, recv_device_, tensor_name_,
                     frame_iter);
  }
  // The parsed key of this step's frame/iteration: the precomputed one at
  // the root, else parsed into *scratch.
  Status Get(FrameAndIter frame_iter, ParsedKey* scratch,
             const ParsedKey** key) const {
    if (frame_iter.frame_id == 0 && frame_iter.iter_id == 0) {
      *key = &root_key_;
      return Status::Ok();
    }
    DFG_RETURN_IF_ERROR(ParseKey(Build(frame_iter), scratch));
    *key = scratch;
    return Status::Ok();
  }

 private:
  std::string send_device_, recv_device_, tensor_name_;
  uint64_t incarnation_ = 0;
  ParsedKey root_key_;
};

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction* ctx) : OpKernel(ctx), key_(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES(ctx, ctx->rendezvous() != nullptr,
                    Internal("Op kernel {} requires a rendezvous", name()));
    ParsedKey scratch;
    const ParsedKey* key = nullptr;
    DFG_OP_REQUIRES_OK(ctx, key_.Get(ctx->frame_iter(), &scratch, &key));
    const bool dead = ctx->is_input_dead() || !ctx->has_input(0);
    ctx->SetStatus(
        ctx->rendezvous()->Send(*key, dead ? Tensor() : ctx->input(0), dead));
  }

 private:
  TransferKey key_;
};

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx), key_(ctx) {
    set_is_expensive(false);
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    DFG_OP_REQUIRES_ASYNC(
        ctx, ctx->rendezvous() != nullptr,
        Internal("Op kernel {} requires a rendezvous", name()), done);
    ParsedKey scratch;
    const ParsedKey* key = nullptr;
    DFG_OP_REQUIRES_OK_ASYNC(ctx, key_.Get(ctx->frame_iter(), &scratch, &key),
                             done);
    ctx->rendezvous()->RecvAsync(
        *key, [this, ctx, done = std::move(done)](
                  const Status& s, const Tensor& value, bool is_dead) {
          if (!s.ok()) {
            ctx->SetStatus(s);
          } else if (!is_dead) {
            if (value.dtype() != output_type(0)) {
              ctx->SetStatus(Internal(
                  "Output 0 of type {} does not match declared output type "
                  "{} for node {{{{node {}}}}}",
                  DataTypeString(value.dtype()), DataTypeString(output_type(0)),
                  name()));
            } else {
              ctx->set_output(0, value);
            }
          }
          done();
        });
  }

 private:
  TransferKey key_;
};

class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("index", &index_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    CallFrameInterface* frame = ctx->call_frame();
    DFG_OP_REQUIRES(ctx, frame != nullptr, Internal("no call frame"));
    Tensor value;
    DFG_OP_REQUIRES_OK(ctx, frame->GetArg(index_, &value));
    DFG_OP_REQUIRES(
        ctx, value.dtype() == dtype_,
        InvalidArgument("Type mismatch: actual {} vs. expect {}",
                        DataTypeString(value.dtype()), DataTypeString(dtype_)));
    ctx->set_output(0, std::move(value));
  }

 private:
  int32_t index_ = 0;
  DataType dtype_ = tensorflow::DT_INVALID;
};

class RetvalOp : public OpKernel {
 public:
  explicit RetvalOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("index", &index_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    CallFrameInterface* frame = ctx->call_frame();
    DFG_OP_REQUIRES(ctx, frame != nullptr, Internal("no call frame"));
    const Tensor& value = ctx->input(0);
    DFG_OP_REQUIRES(
        ctx, value.dtype() == dtype_,
        InvalidArgument("Type mismatch: actual {} vs. expect {}",
                        DataTypeString(value.dtype()), DataTypeString(dtype_)));
    ctx->SetStatus(frame->SetRetval(index_, value));
  }

 private:
  int32_t index_ = 0;
  DataType dtype_ = tensorflow::DT_INVALID;
};

}  // namespace

void RegisterSendRecvKernels(KernelRegistry* r) {
  r->Register<SendOp>("_Send");
  r->Register<SendOp>("_HostSend");
  r->Register<RecvOp>("_Recv");
  r->Register<RecvOp>("_HostRecv");
  r->Register<ArgOp>("_Arg");
  r->Register<RetvalOp>("_Retval");
}

}  // namespace dfg
