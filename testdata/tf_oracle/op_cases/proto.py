"""DecodeProtoV2 and EncodeProto with descriptor_source "local://": message
types that both TensorFlow's and dfg's binaries hold (tensorflow.TensorProto,
tensorflow.TensorShapeProto, tensorflow.Example). EncodeProto's bytes go
through EncodeBase64 (`dfg run`'s .npy strings would lose trailing zero
bytes)."""
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
    yield from decode_cases()
    yield from encode_cases()


def decode_cases():
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


def encode_cases():
    tf = _tf()
    shapes, tensors, _ = _messages()

    def case(name, message_type, fields, sizes, values, error=None):
        def build():
            y = tf.raw_ops.EncodeProto(sizes=tf.constant(sizes, tf.int32),
                                       values=[v() for v in values], field_names=fields,
                                       message_type=message_type)
            return [tf.raw_ops.EncodeBase64(input=y)], {}
        return OpCase(f"EncodeProto/{name}", ["EncodeProto"], build, expect_error=error)
    yield case("tensor", "tensorflow.TensorProto",
               ["float_val", "dtype", "string_val", "int64_val", "version_number"],
               [[2, 1, 2, 0, 1], [0, 1, 1, 2, 0]],
               [lambda: tf.constant([[1.5, 2.0], [0.0, 0.0]]),
                lambda: tf.constant([[1], [0]]),
                lambda: tf.constant([[b"a", b""], [b"\x00z", b""]]),
                lambda: tf.constant([[0, 0], [-3, 2**40]], tf.int64),
                lambda: tf.constant([[0], [7]], tf.int64)])
    yield case("shape_messages", "tensorflow.TensorShapeProto", ["dim", "unknown_rank"],
               [[1, 0], [0, 1]],
               [lambda: tf.constant([[shapes[0]], [b""]]),
                lambda: tf.constant([[False], [True]])])
    yield case("roundtrip", "tensorflow.TensorProto", ["dtype", "tensor_shape"], [[1, 1]],
               [lambda: tf.constant([[3]]), lambda: tf.constant([[shapes[0]]])])
    yield case("bad_type", "tensorflow.TensorProto", ["dtype"], [[1]],
               [lambda: tf.constant([[1.0]])],
               error="Incompatible type for field dtype.  Saw dtype: float but field type is: "
                     "enum")
    yield case("too_big", "tensorflow.TensorProto", ["float_val"], [[3]],
               [lambda: tf.constant([[1.0, 2.0]])],
               error="Size to write must not be larger than value tensor; but saw: 3 > 2 at "
                     "message 0 field 0")
