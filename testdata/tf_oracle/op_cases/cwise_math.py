"""Element-wise math ops whose kernels dfg has: the op section's first family."""
import numpy as np

from op_case import OpCase, data


def _unary(op, dtype, domain="any", shape=(3, 4)):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = f"{op}/{np.dtype(dtype).name}{list(shape)}".replace(" ", "")

    def build():
        x = tf.compat.v1.placeholder(dtype, shape, name="x")
        y = getattr(tf.raw_ops, op)(x=x, name="y")
        return [y], {x: data(name, dtype, shape, domain)}
    return OpCase(name, [op], build)


def cases():
    for op, domain in [("Erf", "any"), ("Exp", "small"), ("Tanh", "any"), ("Sigmoid", "any")]:
        for dtype in (np.float32, np.float64):
            yield _unary(op, dtype, domain)
