#include "lib/distributed/tensor_coding.h"

#include <grpcpp/support/proto_buffer_reader.h>

#include "lib/proto/worker.pb.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

tensorflow::RecvTensorResponse ParseWithProtobuf(grpc::ByteBuffer* buffer) {
  tensorflow::RecvTensorResponse response;
  grpc::ProtoBufferReader reader(buffer);
  REQUIRE(response.ParseFromZeroCopyStream(&reader));
  return response;
}

TEST_CASE(
    "a large tensor's response parses as an ordinary "
    "RecvTensorResponse",
    "[distributed]") {
  Tensor t(tensorflow::DT_FLOAT, TensorShape({300, 7}));
  auto f = t.flat<float>();
  for (size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(i) * 0.5f;
  grpc::ByteBuffer buffer;
  EncodeRecvTensorResponse(t, false, 1234, &buffer);
  std::vector<grpc::Slice> slices;
  REQUIRE(buffer.Dump(&slices).ok());
  CHECK(slices.size() == 3);  // header, the tensor's own bytes, trailer
  CHECK(slices[1].begin() == static_cast<const uint8_t*>(t.data()));
  auto response = ParseWithProtobuf(&buffer);
  CHECK(response.send_start_micros() == 1234);
  CHECK_FALSE(response.is_dead());
  auto back = Tensor::FromProto(response.tensor());
  REQUIRE(back.ok());
  CHECK(back->shape() == t.shape());
  CHECK(std::memcmp(back->data(), t.data(), t.TotalBytes()) == 0);

  Tensor decoded;
  bool dead = true;
  REQUIRE(DecodeRecvTensorResponse(&buffer, &decoded, &dead).ok());
  CHECK_FALSE(dead);
  CHECK(decoded.dtype() == tensorflow::DT_FLOAT);
  CHECK(decoded.shape() == t.shape());
  CHECK(std::memcmp(decoded.data(), t.data(), t.TotalBytes()) == 0);
}

TEST_CASE("large string tensors are encoded element by element",
          "[distributed]") {
  // 200 strings: their std::string structs exceed the raw-slice threshold,
  // but only plain-byte dtypes may travel as raw tensor_content.
  Tensor t(tensorflow::DT_STRING, TensorShape({200}));
  auto f = t.flat<std::string>();
  for (size_t i = 0; i < f.size(); ++i) f[i] = "s" + std::to_string(i);
  grpc::ByteBuffer buffer;
  EncodeRecvTensorResponse(t, false, 0, &buffer);
  auto response = ParseWithProtobuf(&buffer);
  CHECK(response.tensor().string_val_size() == 200);
  Tensor back;
  bool dead = true;
  REQUIRE(DecodeRecvTensorResponse(&buffer, &back, &dead).ok());
  CHECK(back.flat<std::string>()[199] == "s199");

  // A string tensor_content the size of the structs is not copied raw into
  // them: the generic parser reads (and here refuses) it.
  tensorflow::RecvTensorResponse forged;
  forged.mutable_tensor()->set_dtype(tensorflow::DT_STRING);
  forged.mutable_tensor()->mutable_tensor_shape()->add_dim()->set_size(1);
  forged.mutable_tensor()->set_tensor_content(
      std::string(sizeof(std::string), 'x'));
  grpc::Slice slice(forged.SerializeAsString());
  grpc::ByteBuffer forged_buffer(&slice, 1);
  Tensor value;
  (void)DecodeRecvTensorResponse(&forged_buffer, &value, &dead);
  if (value.IsInitialized()) CHECK(value.flat<std::string>().size() == 1);
}

TEST_CASE("small, string and dead values round-trip", "[distributed]") {
  for (const Tensor& t :
       {Tensor::Scalar<float>(2.5f), Tensor::Vector<int64_t>({1, 2, 3}),
        Tensor::Scalar<std::string>("hello")}) {
    grpc::ByteBuffer buffer;
    EncodeRecvTensorResponse(t, false, 0, &buffer);
    Tensor back;
    bool dead = true;
    REQUIRE(DecodeRecvTensorResponse(&buffer, &back, &dead).ok());
    CHECK_FALSE(dead);
    CHECK(back.DebugString() == t.DebugString());
  }
  grpc::ByteBuffer buffer;
  EncodeRecvTensorResponse(Tensor(), true, 0, &buffer);
  CHECK(ParseWithProtobuf(&buffer).is_dead());
  Tensor back;
  bool dead = false;
  REQUIRE(DecodeRecvTensorResponse(&buffer, &back, &dead).ok());
  CHECK(dead);
}

TEST_CASE("a response written by protobuf decodes too", "[distributed]") {
  tensorflow::RecvTensorResponse response;
  Tensor t(tensorflow::DT_DOUBLE, TensorShape({1000}));
  for (auto& v : t.flat<double>()) v = 3.0;
  t.ToProto(response.mutable_tensor(), false);  // typed double_val
  std::string bytes = response.SerializeAsString();
  grpc::Slice slice(bytes);
  grpc::ByteBuffer buffer(&slice, 1);
  Tensor back;
  bool dead = true;
  REQUIRE(DecodeRecvTensorResponse(&buffer, &back, &dead).ok());
  CHECK(back.flat<double>()[999] == 3.0);

  std::string junk = "\x0a\xff\xff\xff\x0f garbage";
  grpc::Slice bad(junk);
  grpc::ByteBuffer bad_buffer(&bad, 1);
  CHECK(DecodeRecvTensorResponse(&bad_buffer, &back, &dead).code() ==
        Code::kDataLoss);
}

}  // namespace
}  // namespace dfg
