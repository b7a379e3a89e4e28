"""AddN, ZerosLike, Select and SelectV2 of DT_VARIANT tensors holding
TensorLists (what loop gradients over lists run), read back with
TensorListStack."""
import numpy as np

from op_case import OpCase, data


def _lists(name, dtype, n, reserve_one=False):
    """Two lists of n [2, 3] elements; with reserve_one the second has only
    element 0 set (the others unset)."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    a = tf.compat.v1.placeholder(dtype, (n, 2, 3), name="a")
    b = tf.compat.v1.placeholder(dtype, (n, 2, 3), name="b")
    shape = tf.constant([2, 3], tf.int32)
    la = tf.raw_ops.TensorListFromTensor(tensor=a, element_shape=shape)
    if reserve_one:
        lb = tf.raw_ops.TensorListReserve(element_shape=shape, num_elements=n,
                                          element_dtype=dtype)
        lb = tf.raw_ops.TensorListSetItem(input_handle=lb, index=0, item=b[0])
    else:
        lb = tf.raw_ops.TensorListFromTensor(tensor=b, element_shape=shape)
    feeds = {a: data(name + "/a", dtype, (n, 2, 3)), b: data(name + "/b", dtype, (n, 2, 3))}
    return la, lb, shape, feeds


def _stack(handle, shape, dtype, n):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf.raw_ops.TensorListStack(input_handle=handle, element_shape=shape,
                                      element_dtype=dtype, num_elements=n, name="out")


def _add_n(dtype, n, reserve_one=False):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = f"AddN/variant[{np.dtype(dtype).name}x{n}]" + ("/unset" if reserve_one else "")

    def build():
        la, lb, shape, feeds = _lists(name, dtype, n, reserve_one)
        s = tf.raw_ops.AddN(inputs=[la, lb, la])
        return [_stack(s, shape, dtype, n)], feeds
    return OpCase(name, ["AddN", "TensorListStack"], build)


def _zeros_like(dtype, n):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = f"ZerosLike/variant[{np.dtype(dtype).name}x{n}]"

    def build():
        la, _, shape, feeds = _lists(name, dtype, n)
        return [_stack(tf.raw_ops.ZerosLike(x=la), shape, dtype, n)], feeds
    return OpCase(name, ["ZerosLike"], build)


def _select(op, pick):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = f"{op}/variant[float32x2]/{pick}"

    def build():
        la, lb, shape, feeds = _lists(name, np.float32, 2)
        c = tf.compat.v1.placeholder(tf.bool, (), name="c")
        feeds[c] = np.array(pick == "then")
        args = dict(x=la, y=lb) if op == "Select" else dict(t=la, e=lb)
        s = getattr(tf.raw_ops, op)(condition=c, **args)
        return [_stack(s, shape, np.float32, 2)], feeds
    return OpCase(name, [op], build)


def _add_n_lengths():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = "AddN/variant/different_lengths"

    def build():
        la, _, shape, feeds = _lists(name, np.float32, 2)
        lc = tf.raw_ops.TensorListPushBack(input_handle=la, tensor=tf.zeros([2, 3]))
        s = tf.raw_ops.AddN(inputs=[la, lc])
        return [_stack(s, shape, np.float32, -1)], feeds
    return OpCase(name, ["AddN"], build,
                  expect_error="Trying to add two lists of tensors with different lengths. "
                               "One is 2 and the other is 3")


def cases():
    for dtype in (np.float32, np.float64, np.int32, np.complex64):
        yield _add_n(dtype, 3)
        yield _zeros_like(dtype, 3)
    yield _add_n(np.float32, 3, reserve_one=True)
    yield _add_n(np.float32, 0)
    for op in ("Select", "SelectV2"):
        for pick in ("then", "else"):
            yield _select(op, pick)
    yield _add_n_lengths()
