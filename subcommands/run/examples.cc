// tf.Example protos from JSON (saved_model_cli's _create_example_string).
#include "subcommands/run/examples.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <nlohmann/json.hpp>

#include "lib/proto/example.pb.h"
#include "subcommands/run/json_depth.h"

namespace dfg {
namespace {

using Json = nlohmann::json;

Status FillFeature(const std::string& name, const Json& values,
                   tensorflow::Feature* feature) {
  if (!values.is_array() || values.empty()) {
    return InvalidArgument(
        "feature '{}' must be a non-empty list of values (its type comes "
        "from the first), got {}",
        name, values.dump());
  }
  const Json& first = values[0];
  for (const Json& v : values) {
    bool ok = false;
    if (first.is_number_float()) {
      ok = v.is_number();
      if (ok) feature->mutable_float_list()->add_value(v.get<float>());
    } else if (first.is_number_integer() || first.is_number_unsigned() ||
               first.is_boolean()) {
      ok = v.is_number_integer() || v.is_number_unsigned() || v.is_boolean();
      if (v.is_boolean()) {
        feature->mutable_int64_list()->add_value(v.get<bool>() ? 1 : 0);
      } else if (ok) {
        feature->mutable_int64_list()->add_value(v.get<int64_t>());
      }
    } else if (first.is_string()) {
      ok = v.is_string();
      if (ok) feature->mutable_bytes_list()->add_value(v.get<std::string>());
    } else {
      return InvalidArgument(
          "Type {} for value {} is not supported for tf.train.Feature "
          "(feature '{}')",
          first.type_name(), first.dump(), name);
    }
    if (!ok) {
      return InvalidArgument(
          "feature '{}': {} does not fit a list whose first value is {}", name,
          v.dump(), first.dump());
    }
  }
  return Status::Ok();
}

std::string SerializeDeterministic(const tensorflow::Example& example) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  example.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

}  // namespace

StatusOr<Tensor> ExamplesFromJson(std::string_view json) {
  // A list of dicts of lists: anything deeper is refused by FillFeature, but
  // only after a recursive dump() of the value for its message.
  DFG_RETURN_IF_ERROR(CheckJsonDepth(json, 8));
  Json list;
  try {  // nlohmann reports the position only through its exception
    list = Json::parse(json.begin(), json.end());
  } catch (const Json::exception& e) {
    size_t at = 0;
    if (const auto* p = dynamic_cast<const Json::parse_error*>(&e)) {
      at = p->byte;
    }
    return InvalidArgument("'{}' is not valid JSON (at byte {})", json, at);
  }
  if (!list.is_array()) {
    return InvalidArgument(
        "expected a list of feature dicts ([{{\"x\": [1.0]}}]), got {}",
        list.dump());
  }
  Tensor out(tensorflow::DT_STRING,
             TensorShape({static_cast<int64_t>(list.size())}));
  auto flat = out.flat<std::string>();
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object()) {
      return InvalidArgument("example {} is {}, not a dict of features", i,
                             list[i].dump());
    }
    tensorflow::Example example;
    auto* features = example.mutable_features()->mutable_feature();
    for (const auto& [name, values] : list[i].items()) {
      Status s = FillFeature(name, values, &(*features)[name]);
      if (!s.ok()) return s.WithPrefix(fmt::format("example {}: ", i));
    }
    flat[i] = SerializeDeterministic(example);
  }
  return out;
}

}  // namespace dfg
