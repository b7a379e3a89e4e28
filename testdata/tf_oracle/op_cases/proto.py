"""DecodeProtoV2 with descriptor_source "local://": message types that both
TensorFlow's and dfg's binaries hold (tensorflow.TensorProto,
tensorflow.TensorShapeProto, tensorflow.Example)."""
from op_case import OpCase


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _messages():
    from tensorflow.core.example import example_pb2, feature_pb2  # pylint: disable=import-outside-toplevel
    from tensorflow.core.framework import tensor_pb2, tensor_shape_pb2  # pylint: disable=import-outside-toplevel
    dim = tensor_shape_pb2.TensorShapeProto.Dim
    shapes = [tensor_shape_pb2.TensorShapeProto(dim=[dim(size=3, name="a"), dim(size=-1)]),
              tensor_shape_pb2.TensorShapeProto(unknown_rank=True),
              tensor_shape_pb2.TensorShapeProto()]
    tensors = [tensor_pb2.TensorProto(dtype=1, float_val=[1.5, 2], int64_val=[5, -7],
                                      string_val=[b"x", b""], tensor_shape=shapes[0]),
               tensor_pb2.TensorProto(dtype=9, version_number=3, bool_val=[True, False, True],
                                      double_val=[0.25], half_val=[15360]),
               tensor_pb2.TensorProto()]
    feature = feature_pb2.Feature(int64_list=feature_pb2.Int64List(value=[1, 2]))
    examples = [example_pb2.Example(features=feature_pb2.Features(feature={"a": feature})),
                example_pb2.Example()]
    return ([m.SerializeToString() for m in shapes], [m.SerializeToString() for m in tensors],
            [m.SerializeToString() for m in examples])


def cases():
    tf = _tf()
    shapes, tensors, examples = _messages()

    def case(name, data, message_type, fields, types, error=None, **attrs):
        def build():
            sizes, values = tf.raw_ops.DecodeProtoV2(
                bytes=tf.constant(data, tf.string), message_type=message_type,
                field_names=fields, output_types=types, **attrs)
            return [sizes] + list(values), {}
        return OpCase(f"DecodeProtoV2/{name}", ["DecodeProtoV2"], build, expect_error=error)
    yield case("shape", shapes, "tensorflow.TensorShapeProto", ["dim", "unknown_rank"],
               [tf.string, tf.bool])
    yield case("tensor", tensors, "tensorflow.TensorProto",
               ["dtype", "float_val", "int64_val", "string_val", "version_number",
                "bool_val", "double_val", "half_val", "tensor_shape"],
               [tf.int32, tf.float32, tf.int64, tf.string, tf.int32, tf.bool, tf.float64,
                tf.int64, tf.string])
    yield case("tensor[3,1]", [[t] for t in tensors], "tensorflow.TensorProto",
               ["float_val", "dtype", "version_number"], [tf.float64, tf.int32, tf.int64])
    yield case("example", examples, "tensorflow.Example", ["features"], [tf.string])
    yield case("empty_batch", [], "tensorflow.TensorProto", ["float_val"], [tf.float32],
               error="Bufs argument must contain at least one value")
    yield case("text", ["dim { size: 4 } dim { size: 5 name: 'x' }", "unknown_rank: true"],
               "tensorflow.TensorShapeProto", ["dim", "unknown_rank"], [tf.string, tf.bool],
               message_format="text")
    yield case("bad_type", tensors, "tensorflow.TensorProto", ["dtype"], [tf.float32],
               error="Unexpected output type for tensorflow.TensorProto.dtype: enum to DT_FLOAT")
    yield case("bad_message", tensors, "tensorflow.Nope", ["dtype"], [tf.int32],
               error="No descriptor found for message type tensorflow.Nope")
    yield case("bad_field", tensors, "tensorflow.TensorProto", ["nope"], [tf.int32],
               error="Unknown field: nope in message type tensorflow.TensorProto")
