"""TF1's V1 checkpoint ops: Save, SaveSlices, Restore, RestoreSlice. A save
then restore in one graph (each runtime reads back its own file), and
restores of a file TensorFlow's Save wrote at build time."""
import os
import tempfile

import numpy as np

from op_case import OpCase, data

TYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16,
         np.float16, np.complex64, np.bool_, object]


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _values():
    out = {}
    for dtype in TYPES:
        name = f"v_{np.dtype(dtype).name}"
        out[name] = data(name, dtype, (6,)).reshape(2, 3)
    out["scalar"] = np.float32(2.5)
    out["empty"] = np.zeros((0, 4), np.float32)
    return out


def _const(tf, v):
    return tf.constant(v, tf.string if v.dtype == object else None)


def _tf_written():
    """A V1 checkpoint of _values() and a sliced tensor, as TensorFlow's
    Save and SaveSlices write them (two shards)."""
    tf = _tf()
    directory = tempfile.mkdtemp(prefix="dfg-v1-")
    g = tf.Graph()
    with g.as_default():
        values = _values()
        names = sorted(values)
        save = tf.raw_ops.Save(filename=os.path.join(directory, "model.ckpt-00000-of-00002"),
                               tensor_names=names, data=[_const(tf, values[n]) for n in names])
        big = np.arange(24, dtype=np.float32).reshape(4, 6)
        save_slices = tf.raw_ops.SaveSlices(
            filename=os.path.join(directory, "model.ckpt-00001-of-00002"),
            tensor_names=["big", "big"], shapes_and_slices=["4 6 0,2:-", "4 6 2,2:-"],
            data=[tf.constant(big[:2]), tf.constant(big[2:])])
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run([save, save_slices])
    return os.path.join(directory, "model.ckpt-*")


def _restore_cases():
    tf = _tf()
    pattern = _tf_written()
    out = []
    for name, v in _values().items():
        dt = tf.string if v.dtype == object else tf.as_dtype(v.dtype)

        def build(name=name, dt=dt):
            return [tf.raw_ops.Restore(file_pattern=pattern, tensor_name=name, dt=dt)], {}
        out.append(OpCase(f"Restore/tf_file/{name}", ["Restore"], build))
    for spec in ["4 6 -:-", "4 6 1,2:2,3", "4 6 3,1:-"]:
        out.append(OpCase(f"RestoreSlice/tf_file/{spec}", ["RestoreSlice"], lambda spec=spec: ([
            tf.raw_ops.RestoreSlice(file_pattern=pattern, tensor_name="big",
                                    shape_and_slice=spec, dt=tf.float32)], {})))
    out.append(OpCase("Restore/tf_file/whole_from_slices", ["Restore"], lambda: ([
        tf.raw_ops.Restore(file_pattern=pattern, tensor_name="big", dt=tf.float32)], {})))
    for name, args, error in [
            ("missing", dict(tensor_name="nope", dt=tf.float32),
             r'Tensor name "nope" not found in checkpoint files'),
            ("wrong_type", dict(tensor_name="scalar", dt=tf.int32),
             "Expected to restore a tensor of type int32, got a tensor of type float instead: "
             "tensor_name = scalar")]:
        out.append(OpCase(f"Restore/{name}", ["Restore"], lambda args=args: ([
            tf.raw_ops.Restore(file_pattern=pattern, **args)], {}), expect_error=error))
    out.append(OpCase("Restore/no_files", ["Restore"], lambda: ([tf.raw_ops.Restore(
        file_pattern="/nonexistent-dfg/ckpt-*", tensor_name="x", dt=tf.float32)], {}),
        expect_error="Unsuccessful TensorSliceReader constructor: Failed to find any "
                     "matching files for /nonexistent-dfg/ckpt-\\*"))
    return out


def _roundtrip_cases():
    """Save (or SaveSlices) then Restore in one graph."""
    tf = _tf()
    directory = tempfile.mkdtemp(prefix="dfg-v1rt-")
    out = []
    for i, (name, v) in enumerate(_values().items()):
        path = os.path.join(directory, f"rt{i}.ckpt")

        def build(name=name, v=v, path=path):
            dt = tf.string if v.dtype == object else tf.as_dtype(v.dtype)
            save = tf.raw_ops.Save(filename=path, tensor_names=[name, "other"],
                                   data=[_const(tf, v), tf.constant([1, 2])])
            with tf.control_dependencies([save]):
                r = tf.raw_ops.Restore(file_pattern=path, tensor_name=name, dt=dt)
            return [r], {}
        out.append(OpCase(f"Save/roundtrip/{name}", ["Save", "Restore"], build))
    path = os.path.join(directory, "slices.ckpt")

    def slices():
        big = data("slices", np.float64, (12,)).reshape(3, 4)
        save = tf.raw_ops.SaveSlices(filename=path, tensor_names=["a", "a", "b"],
                                     shapes_and_slices=["3 4 -:0,1", "3 4 -:1,3", ""],
                                     data=[tf.constant(big[:, :1]), tf.constant(big[:, 1:]),
                                           tf.constant(["s"])])
        with tf.control_dependencies([save]):
            a = tf.raw_ops.Restore(file_pattern=path, tensor_name="a", dt=tf.float64)
            s = tf.raw_ops.RestoreSlice(file_pattern=path, tensor_name="a",
                                        shape_and_slice="3 4 1,2:1,2", dt=tf.float64)
        return [a, s], {}
    out.append(OpCase("SaveSlices/roundtrip", ["SaveSlices", "Restore", "RestoreSlice"], slices))

    return out


def cases():
    yield from _restore_cases()
    yield from _roundtrip_cases()
