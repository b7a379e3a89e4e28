#include "lib/kernels/shape_args.h"

#include <span>
#include <string>

#include "lib/kernels/kernel_util.h"

namespace dfg {

Status MakeShape(const std::vector<int64_t>& dims, TensorShape* shape) {
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("Dimension {} must be >= 0", d);
  }
  if (!TensorShape::IsValid(dims)) {
    return InvalidArgument("Shape {} is too large", VectorString(dims));
  }
  *shape = TensorShape(std::span<const int64_t>(dims));
  return Status::Ok();
}

Status ReadBiasDataFormat(OpKernelConstruction* ctx, bool* nchw) {
  std::string format = "NHWC";
  if (ctx->HasAttr("data_format")) {
    DFG_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  }
  if (format != "NHWC" && format != "NCHW") {
    return InvalidArgument("Invalid data format");
  }
  *nchw = format == "NCHW";
  return Status::Ok();
}

}  // namespace dfg
