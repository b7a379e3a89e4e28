// OpKernel, OpKernelConstruction and OpKernelContext.
#include "lib/kernels/op_kernel.h"

#include <condition_variable>

#include "lib/graph/op_registry.h"

namespace dfg {

using tensorflow::AttrValue;

// ---------------------------------------------------------------------------
// Attrs

namespace {

const AttrValue* FindAttr(const NodeDef& def, std::string_view name) {
  auto it = def.attr().find(std::string(name));
  if (it != def.attr().end()) return &it->second;
  const OpInfo* info = OpRegistry::Global().Find(def.op());
  if (info == nullptr) return nullptr;
  for (const auto& attr : info->def.attr()) {
    if (attr.name() == name && attr.has_default_value()) {
      return &attr.default_value();
    }
  }
  return nullptr;
}

const char* ValueTypeName(const AttrValue& v) {
  switch (v.value_case()) {
    case AttrValue::kS:
      return "string";
    case AttrValue::kI:
      return "int";
    case AttrValue::kF:
      return "float";
    case AttrValue::kB:
      return "bool";
    case AttrValue::kType:
      return "type";
    case AttrValue::kShape:
      return "shape";
    case AttrValue::kTensor:
      return "tensor";
    case AttrValue::kList:
      return "list";
    case AttrValue::kFunc:
      return "func";
    case AttrValue::kPlaceholder:
      return "placeholder";
    default:
      return "<unset>";
  }
}

Status WrongType(const AttrValue& v, const char* expected) {
  return InvalidArgument(
      "AttrValue had value with type '{}' when '{}' expected", ValueTypeName(v),
      expected);
}

// An empty list is stored without a oneof case in some writers.
bool IsList(const AttrValue& v) {
  return v.value_case() == AttrValue::kList ||
         v.value_case() == AttrValue::VALUE_NOT_SET;
}

Status Convert(const AttrValue& v, int64_t* out) {
  if (v.value_case() != AttrValue::kI) return WrongType(v, "int");
  *out = v.i();
  return Status::Ok();
}
Status Convert(const AttrValue& v, int32_t* out) {
  if (v.value_case() != AttrValue::kI) return WrongType(v, "int");
  if (v.i() < INT32_MIN || v.i() > INT32_MAX) {
    return InvalidArgument("Attr value {} out of range for an int32", v.i());
  }
  *out = static_cast<int32_t>(v.i());
  return Status::Ok();
}
Status Convert(const AttrValue& v, float* out) {
  if (v.value_case() != AttrValue::kF) return WrongType(v, "float");
  *out = v.f();
  return Status::Ok();
}
Status Convert(const AttrValue& v, bool* out) {
  if (v.value_case() != AttrValue::kB) return WrongType(v, "bool");
  *out = v.b();
  return Status::Ok();
}
Status Convert(const AttrValue& v, std::string* out) {
  if (v.value_case() != AttrValue::kS) return WrongType(v, "string");
  *out = v.s();
  return Status::Ok();
}
Status Convert(const AttrValue& v, DataType* out) {
  if (v.value_case() != AttrValue::kType) return WrongType(v, "type");
  *out = v.type();
  return Status::Ok();
}
Status Convert(const AttrValue& v, TensorShapeProto* out) {
  if (v.value_case() != AttrValue::kShape) return WrongType(v, "shape");
  *out = v.shape();
  return Status::Ok();
}
Status Convert(const AttrValue& v, TensorProto* out) {
  if (v.value_case() != AttrValue::kTensor) return WrongType(v, "tensor");
  *out = v.tensor();
  return Status::Ok();
}
Status Convert(const AttrValue& v, std::vector<int64_t>* out) {
  if (!IsList(v)) return WrongType(v, "list(int)");
  out->assign(v.list().i().begin(), v.list().i().end());
  return Status::Ok();
}
Status Convert(const AttrValue& v, std::vector<int32_t>* out) {
  if (!IsList(v)) return WrongType(v, "list(int)");
  out->clear();
  for (int64_t i : v.list().i()) out->push_back(static_cast<int32_t>(i));
  return Status::Ok();
}
Status Convert(const AttrValue& v, std::vector<DataType>* out) {
  if (!IsList(v)) return WrongType(v, "list(type)");
  out->clear();
  for (int t : v.list().type()) out->push_back(static_cast<DataType>(t));
  return Status::Ok();
}
Status Convert(const AttrValue& v, std::vector<std::string>* out) {
  if (!IsList(v)) return WrongType(v, "list(string)");
  out->assign(v.list().s().begin(), v.list().s().end());
  return Status::Ok();
}
Status Convert(const AttrValue& v, std::vector<TensorShapeProto>* out) {
  if (!IsList(v)) return WrongType(v, "list(shape)");
  out->assign(v.list().shape().begin(), v.list().shape().end());
  return Status::Ok();
}

}  // namespace

OpKernelConstruction::OpKernelConstruction(
    const NodeDef* def, std::string_view device_type,
    const std::vector<DataType>* input_types,
    const std::vector<DataType>* output_types)
    : def_(def),
      device_type_(device_type),
      input_types_(input_types),
      output_types_(output_types) {}

template <typename T>
Status OpKernelConstruction::GetAttr(std::string_view name, T* value) const {
  const AttrValue* v = FindAttr(*def_, name);
  if (v == nullptr) {
    return NotFound("No attr named '{}' in NodeDef:", name);
  }
  Status s = Convert(*v, value);
  if (!s.ok()) {
    return Status(s.code(), fmt::format("{} for attr '{}'", s.message(), name));
  }
  return s;
}

template Status OpKernelConstruction::GetAttr(std::string_view, int64_t*) const;
template Status OpKernelConstruction::GetAttr(std::string_view, int32_t*) const;
template Status OpKernelConstruction::GetAttr(std::string_view, float*) const;
template Status OpKernelConstruction::GetAttr(std::string_view, bool*) const;
template Status OpKernelConstruction::GetAttr(std::string_view,
                                              std::string*) const;
template Status OpKernelConstruction::GetAttr(std::string_view,
                                              DataType*) const;
template Status OpKernelConstruction::GetAttr(std::string_view,
                                              TensorShapeProto*) const;
template Status OpKernelConstruction::GetAttr(std::string_view,
                                              TensorProto*) const;
template Status OpKernelConstruction::GetAttr(std::string_view,
                                              std::vector<int64_t>*) const;
template Status OpKernelConstruction::GetAttr(std::string_view,
                                              std::vector<int32_t>*) const;
template Status OpKernelConstruction::GetAttr(std::string_view,
                                              std::vector<DataType>*) const;
template Status OpKernelConstruction::GetAttr(std::string_view,
                                              std::vector<std::string>*) const;
// Also std::vector<TensorShapeProto> (list(shape)); not named in the header
// comment to keep that widely included header unchanged.
template Status OpKernelConstruction::GetAttr(
    std::string_view, std::vector<TensorShapeProto>*) const;

bool OpKernelConstruction::HasAttr(std::string_view name) const {
  return FindAttr(*def_, name) != nullptr;
}

// ---------------------------------------------------------------------------
// OpKernel

OpKernel::OpKernel(OpKernelConstruction* ctx) {
  if (ctx->definition_outlives_kernel()) {
    def_ = &ctx->def();
    input_types_ = &ctx->input_types();
    output_types_ = &ctx->output_types();
    return;
  }
  owned_ = std::make_unique<Owned>(
      Owned{ctx->def(), ctx->input_types(), ctx->output_types()});
  def_ = &owned_->def;
  input_types_ = &owned_->input_types;
  output_types_ = &owned_->output_types;
}

OpKernel::~OpKernel() = default;

const std::string& OpKernel::requested_input(int i) const {
  static const std::string* const kEmpty = new std::string();
  if (i < 0 || i >= def_->input_size()) return *kEmpty;
  return def_->input(i);
}

void AsyncOpKernel::Compute(OpKernelContext* ctx) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  ComputeAsync(ctx, [&] {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
}

// ---------------------------------------------------------------------------
// OpKernelContext

Tensor* OpKernelContext::mutable_input(int i) const {
  DFG_CHECK(input_is_ref(i));
  return params_->inputs[i].tensor;
}

std::mutex* OpKernelContext::input_ref_mutex(int i) const {
  DFG_CHECK(input_is_ref(i));
  return params_->inputs[i].mutex_if_ref;
}

void OpKernelContext::set_output(int i, const Tensor& t) {
  OpOutput& out = params_->outputs[i];
  out.value = t;
  out.has_value = true;
}

void OpKernelContext::set_output(int i, Tensor&& t) {
  OpOutput& out = params_->outputs[i];
  out.value = std::move(t);
  out.has_value = true;
}

void OpKernelContext::set_output_ref(int i, std::mutex* mu, Tensor* t) {
  OpOutput& out = params_->outputs[i];
  out.ref = t;
  out.ref_mu = mu;
  out.has_value = true;
}

Status OpKernelContext::allocate_output(int i, const TensorShape& shape,
                                        Tensor** out) {
  DFG_ASSIGN_OR_RETURN(
      Tensor t,
      Tensor::TryAllocate(BaseType(op_kernel().output_type(i)), shape));
  OpOutput& slot = params_->outputs[i];
  slot.value = std::move(t);
  slot.has_value = true;
  *out = &slot.value;
  return Status::Ok();
}

Status OpKernelContext::forward_input_or_allocate_output(
    std::initializer_list<int> inputs, int i, const TensorShape& shape,
    Tensor** out) {
  if (params_->allow_input_forwarding) {
    const DataType dtype = op_kernel().output_type(i);
    for (int in : inputs) {
      const TensorValue& v = params_->inputs[in];
      if (v.is_ref() || v.tensor == nullptr) continue;
      Tensor* t = v.tensor;
      if (t->dtype() != dtype || t->NumElements() != shape.num_elements() ||
          !t->RefCountIsOne() || dtype == tensorflow::DT_STRING ||
          dtype == tensorflow::DT_RESOURCE) {
        continue;
      }
      OpOutput& slot = params_->outputs[i];
      // Shares the buffer; the input stays readable (element i is read
      // before output element i is written) until the executor drops it.
      slot.value.CopyFrom(*t, shape);
      slot.has_value = true;
      *out = &slot.value;
      return Status::Ok();
    }
  }
  return allocate_output(i, shape, out);
}

// ---------------------------------------------------------------------------
// Helpers for the executor

Status AttachNodeDef(const Status& s, const NodeDef& def) {
  if (s.ok()) return s;
  return Status(s.code(), fmt::format("{}\n\t [[{{{{node {}}}}}]]", s.message(),
                                      def.name()));
}

Status DerefRefInput(const OpKernel& kernel, int i, const TensorValue& in,
                     Tensor* out) {
  if (!in.is_ref()) {
    *out = *in.tensor;
    return Status::Ok();
  }
  std::lock_guard<std::mutex> lock(*in.mutex_if_ref);
  if (!in.tensor->IsInitialized() && !kernel.allows_uninitialized_input()) {
    return FailedPrecondition("Attempting to use uninitialized value {}",
                              kernel.requested_input(i));
  }
  *out = *in.tensor;
  return Status::Ok();
}

}  // namespace dfg
