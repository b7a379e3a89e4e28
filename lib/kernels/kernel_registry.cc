// KernelRegistry: lookup by op and device type, dtype constraints, and
// TensorFlow's error texts when nothing matches.
#include "lib/kernels/kernel_registry.h"

#include <algorithm>
#include <map>

#include "lib/graph/attr_summary.h"
#include "lib/graph/op_registry.h"

namespace dfg {

using tensorflow::AttrValue;

// One per kernel file (explicit list, no static constructors).
void RegisterConstantKernels(KernelRegistry* r);
void RegisterIdentityKernels(KernelRegistry* r);
void RegisterCastKernels(KernelRegistry* r);
void RegisterCwiseBinaryKernels(KernelRegistry* r);
void RegisterCwiseCompareKernels(KernelRegistry* r);
void RegisterCwiseUnaryKernels(KernelRegistry* r);
void RegisterSelectKernels(KernelRegistry* r);
void RegisterMatMulKernels(KernelRegistry* r);
void RegisterNnKernels(KernelRegistry* r);
void RegisterShapeKernels(KernelRegistry* r);
void RegisterTransposeKernels(KernelRegistry* r);
void RegisterConcatKernels(KernelRegistry* r);
void RegisterReductionKernels(KernelRegistry* r);
void RegisterVariableKernels(KernelRegistry* r);
void RegisterSendRecvKernels(KernelRegistry* r);
void RegisterControlFlowKernels(KernelRegistry* r);
void RegisterConvKernels(KernelRegistry* r);
void RegisterPoolingKernels(KernelRegistry* r);
void RegisterBatchNormKernels(KernelRegistry* r);
void RegisterSliceKernels(KernelRegistry* r);
void RegisterGatherKernels(KernelRegistry* r);
void RegisterNnExtKernels(KernelRegistry* r);
void RegisterFusedKernels(KernelRegistry* r);
void RegisterBatchMatMulKernels(KernelRegistry* r);
void RegisterResizeKernels(KernelRegistry* r);
void RegisterSpaceKernels(KernelRegistry* r);
void RegisterConvGradKernels(KernelRegistry* r);
void RegisterEinsumKernels(KernelRegistry* r);
void RegisterCwiseTrigKernels(KernelRegistry* r);
void RegisterAbortKernels(KernelRegistry* r);
void RegisterNmsKernels(KernelRegistry* r);
void RegisterConv3DKernels(KernelRegistry* r);
void RegisterPoolGradFamilyKernels(KernelRegistry* r);
void RegisterImageKernels(KernelRegistry* r);
void RegisterQuantizeKernels(KernelRegistry* r);
void RegisterFunctionalKernels(KernelRegistry* r);
void RegisterRandomKernels(KernelRegistry* r);
void RegisterTrainingKernels(KernelRegistry* r);
void RegisterIndexGradKernels(KernelRegistry* r);
void RegisterGradKernels(KernelRegistry* r);
void RegisterTensorListKernels(KernelRegistry* r);
void RegisterTensorArrayKernels(KernelRegistry* r);
void RegisterStackKernels(KernelRegistry* r);
void RegisterSaveRestoreKernels(KernelRegistry* r);
void RegisterStringJoinKernels(KernelRegistry* r);
void RegisterParseExampleKernels(KernelRegistry* r);
void RegisterLookupKernels(KernelRegistry* r);
void RegisterRegexKernels(KernelRegistry* r);
void RegisterStringKernels(KernelRegistry* r);
void RegisterBincountKernels(KernelRegistry* r);
void RegisterRaggedToDenseKernels(KernelRegistry* r);
void RegisterResourceKernels(KernelRegistry* r);
void RegisterUniqueKernels(KernelRegistry* r);
void RegisterLoggingKernels(KernelRegistry* r);
void RegisterMathExtKernels(KernelRegistry* r);
void RegisterSegmentReduceKernels(KernelRegistry* r);
void RegisterMathMiscKernels(KernelRegistry* r);
void RegisterMatrixDiagKernels(KernelRegistry* r);
void RegisterLinalgDecompKernels(KernelRegistry* r);
void RegisterSpecialKernels(KernelRegistry* r);
void RegisterLinalgKernels(KernelRegistry* r);
void RegisterLinalgExtKernels(KernelRegistry* r);
void RegisterScatterKernels(KernelRegistry* r);
void RegisterArrayMiscKernels(KernelRegistry* r);
void RegisterImageExtKernels(KernelRegistry* r);
void RegisterFftKernels(KernelRegistry* r);
void RegisterImageColorKernels(KernelRegistry* r);
void RegisterImageCodecKernels(KernelRegistry* r);
void RegisterImageTransformKernels(KernelRegistry* r);
void RegisterNnGradExtKernels(KernelRegistry* r);
void RegisterTensorListExtKernels(KernelRegistry* r);
void RegisterStatelessRandomKernels(KernelRegistry* r);
void RegisterRandomExtKernels(KernelRegistry* r);
void RegisterSparseKernels(KernelRegistry* r);
void RegisterSparseExtKernels(KernelRegistry* r);
void RegisterTrainingExtKernels(KernelRegistry* r);
void RegisterRnnKernels(KernelRegistry* r);
void RegisterFusedExtKernels(KernelRegistry* r);
void RegisterDecodeKernels(KernelRegistry* r);
void RegisterAudioKernels(KernelRegistry* r);
void RegisterImageDecodeKernels(KernelRegistry* r);
void RegisterParseSequenceExampleKernels(KernelRegistry* r);
void RegisterSaveRestoreV1Kernels(KernelRegistry* r);
void RegisterParseSequenceExampleV1Kernels(KernelRegistry* r);
void RegisterVocabRemapKernels(KernelRegistry* r);
void RegisterProtoKernels(KernelRegistry* r);
void RegisterQuantKernels(KernelRegistry* r);
void RegisterStateKernels(KernelRegistry* r);

void RegisterAllKernels(KernelRegistry* r) {
  RegisterConstantKernels(r);
  RegisterIdentityKernels(r);
  RegisterCastKernels(r);
  RegisterCwiseBinaryKernels(r);
  RegisterCwiseCompareKernels(r);
  RegisterCwiseUnaryKernels(r);
  RegisterSelectKernels(r);
  RegisterMatMulKernels(r);
  RegisterNnKernels(r);
  RegisterShapeKernels(r);
  RegisterTransposeKernels(r);
  RegisterConcatKernels(r);
  RegisterReductionKernels(r);
  RegisterVariableKernels(r);
  RegisterSendRecvKernels(r);
  RegisterControlFlowKernels(r);
  RegisterConvKernels(r);
  RegisterPoolingKernels(r);
  RegisterBatchNormKernels(r);
  RegisterSliceKernels(r);
  RegisterGatherKernels(r);
  RegisterNnExtKernels(r);
  RegisterFusedKernels(r);
  RegisterBatchMatMulKernels(r);
  RegisterResizeKernels(r);
  RegisterSpaceKernels(r);
  RegisterConvGradKernels(r);
  RegisterEinsumKernels(r);
  RegisterCwiseTrigKernels(r);
  RegisterAbortKernels(r);
  RegisterNmsKernels(r);
  RegisterConv3DKernels(r);
  RegisterPoolGradFamilyKernels(r);
  RegisterImageKernels(r);
  RegisterQuantizeKernels(r);
  RegisterFunctionalKernels(r);
  RegisterRandomKernels(r);
  RegisterTrainingKernels(r);
  RegisterIndexGradKernels(r);
  RegisterGradKernels(r);
  RegisterTensorListKernels(r);
  RegisterTensorArrayKernels(r);
  RegisterStackKernels(r);
  RegisterSaveRestoreKernels(r);
  RegisterStringJoinKernels(r);
  RegisterParseExampleKernels(r);
  RegisterLookupKernels(r);
  RegisterRegexKernels(r);
  RegisterStringKernels(r);
  RegisterBincountKernels(r);
  RegisterRaggedToDenseKernels(r);
  RegisterResourceKernels(r);
  RegisterUniqueKernels(r);
  RegisterLoggingKernels(r);
  RegisterMathExtKernels(r);
  RegisterSegmentReduceKernels(r);
  RegisterMathMiscKernels(r);
  RegisterMatrixDiagKernels(r);
  RegisterLinalgDecompKernels(r);
  RegisterSpecialKernels(r);
  RegisterLinalgKernels(r);
  RegisterLinalgExtKernels(r);
  RegisterScatterKernels(r);
  RegisterArrayMiscKernels(r);
  RegisterImageExtKernels(r);
  RegisterFftKernels(r);
  RegisterImageColorKernels(r);
  RegisterImageCodecKernels(r);
  RegisterImageTransformKernels(r);
  RegisterNnGradExtKernels(r);
  RegisterTensorListExtKernels(r);
  RegisterStatelessRandomKernels(r);
  RegisterRandomExtKernels(r);
  RegisterSparseKernels(r);
  RegisterSparseExtKernels(r);
  RegisterTrainingExtKernels(r);
  RegisterRnnKernels(r);
  RegisterFusedExtKernels(r);
  RegisterDecodeKernels(r);
  RegisterAudioKernels(r);
  RegisterImageDecodeKernels(r);
  RegisterParseSequenceExampleKernels(r);
  RegisterSaveRestoreV1Kernels(r);
  RegisterParseSequenceExampleV1Kernels(r);
  RegisterVocabRemapKernels(r);
  RegisterProtoKernels(r);
  RegisterQuantKernels(r);
  RegisterStateKernels(r);
}

const KernelRegistry& KernelRegistry::Global() {
  static const KernelRegistry* const registry = [] {
    auto* r = new KernelRegistry();
    RegisterAllKernels(r);
    return r;
  }();
  return *registry;
}

void KernelRegistry::Register(KernelRegistration registration) {
  std::string op = registration.op;
  kernels_[op].push_back(std::move(registration));
}

namespace {

const AttrValue* FindAttrOrDefault(const NodeDef& node,
                                   const std::string& name) {
  auto it = node.attr().find(name);
  if (it != node.attr().end()) return &it->second;
  const OpInfo* info = OpRegistry::Global().Find(node.op());
  if (info == nullptr) return nullptr;
  for (const auto& attr : info->def.attr()) {
    if (attr.name() == name && attr.has_default_value()) {
      return &attr.default_value();
    }
  }
  return nullptr;
}

bool Matches(const KernelRegistration& reg, const NodeDef& node) {
  for (const auto& c : reg.constraints) {
    const AttrValue* v = FindAttrOrDefault(node, c.attr);
    if (v == nullptr) return false;
    if (v->value_case() == AttrValue::kType) {
      if (std::find(c.allowed.begin(), c.allowed.end(), v->type()) ==
          c.allowed.end()) {
        return false;
      }
    } else if (v->value_case() == AttrValue::kList) {
      for (int t : v->list().type()) {
        if (std::find(c.allowed.begin(), c.allowed.end(),
                      static_cast<DataType>(t)) == c.allowed.end()) {
          return false;
        }
      }
    } else {
      return false;
    }
  }
  return true;
}

std::string TypeEnumName(DataType t) { return tensorflow::DataType_Name(t); }

// AttrSlice::DebugString, as TensorFlow's "No OpKernel was registered"
// prints the attrs: name=SummarizeAttrValue, sorted by name (TensorFlow's
// order is its map's), without _device.
std::string SummarizeNodeAttrs(const NodeDef& node) {
  std::map<std::string, const AttrValue*> sorted;
  for (const auto& [k, v] : node.attr()) sorted[k] = &v;
  std::vector<std::string> parts;
  for (const auto& [k, v] : sorted) {
    parts.push_back(k + "=" + SummarizeAttrValue(*v));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string SummarizeRegistration(const KernelRegistration& reg) {
  std::string out = fmt::format("device='{}'", reg.device_type);
  for (const auto& c : reg.constraints) {
    std::vector<std::string> names;
    for (DataType t : c.allowed) names.push_back(TypeEnumName(t));
    out += fmt::format("; {} in [{}]", c.attr, fmt::join(names, ", "));
  }
  return out;
}

}  // namespace

const KernelRegistration* KernelRegistry::Find(
    const NodeDef& node, std::string_view device_type) const {
  auto it = kernels_.find(node.op());
  if (it == kernels_.end()) return nullptr;
  for (const auto& reg : it->second) {
    if (reg.device_type == device_type && Matches(reg, node)) return &reg;
  }
  return nullptr;
}

std::vector<std::string> KernelRegistry::OpNames(
    std::string_view device_type) const {
  std::vector<std::string> names;
  for (const auto& [op, regs] : kernels_) {
    for (const auto& reg : regs) {
      if (reg.device_type == device_type) {
        names.push_back(op);
        break;
      }
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<const KernelRegistration*> KernelRegistry::Registrations(
    std::string_view op) const {
  std::vector<const KernelRegistration*> out;
  auto it = kernels_.find(std::string(op));
  if (it == kernels_.end()) return out;
  for (const auto& reg : it->second) out.push_back(&reg);
  return out;
}

StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::CreateKernel(
    const NodeDef& node, std::string_view device_type,
    const std::vector<DataType>& input_types,
    const std::vector<DataType>& output_types,
    bool definition_outlives_kernel) const {
  const KernelRegistration* reg = Find(node, device_type);
  if (reg == nullptr) {
    std::string registered;
    auto it = kernels_.find(node.op());
    if (it == kernels_.end() || it->second.empty()) {
      registered = "  <no registered kernels>";
    } else {
      for (const auto& r : it->second) {
        if (!registered.empty()) registered += "\n";
        registered += "  " + SummarizeRegistration(r);
      }
    }
    return InvalidArgument(
        "No OpKernel was registered to support Op '{}' used by {{{{node {}}}}} "
        "with these attrs: [{}]\nRegistered devices: [{}]\nRegistered "
        "kernels:\n{}",
        node.op(), node.name(), SummarizeNodeAttrs(node), kDeviceCpu,
        registered);
  }
  OpKernelConstruction construction(&node, device_type, &input_types,
                                    &output_types);
  construction.set_definition_outlives_kernel(definition_outlives_kernel);
  std::unique_ptr<OpKernel> kernel = reg->factory(&construction);
  if (!construction.status().ok()) {
    const Status& s = construction.status();
    return Status(s.code(), fmt::format("{}\n\t "
                                        "[[{{{{node {}}}}}]]",
                                        s.message(), node.name()));
  }
  return kernel;
}

}  // namespace dfg
