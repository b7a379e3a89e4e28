"""SpaceToBatch and BatchToSpace: the 4-D TF1 forms of the ND ops, one
block_size for both spatial dims."""
import numpy as np

from op_case import OpCase, data


def _case(op, dtype, shape, block, pads, index=np.int32, error=None):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = (f"{op}/{np.dtype(dtype).name}{list(shape)}/b{block}/p{pads}/"
            f"{np.dtype(index).name}").replace(" ", "")

    def build():
        x = tf.compat.v1.placeholder(dtype, None, name="x")
        p = tf.constant(np.array(pads, index).reshape(2, 2))
        if op == "SpaceToBatch":
            y = tf.raw_ops.SpaceToBatch(input=x, paddings=p, block_size=block, name="y")
        else:
            y = tf.raw_ops.BatchToSpace(input=x, crops=p, block_size=block, name="y")
        return [y], {x: data(name, dtype, shape)}
    return OpCase(name, [op], build, expect_error=error)


def cases():
    for dtype in (np.float32, np.float64, np.int32, np.int64, np.uint8, np.float16):
        yield _case("SpaceToBatch", dtype, (2, 4, 6, 3), 2, [0, 0, 1, 1])
        yield _case("BatchToSpace", dtype, (8, 2, 3, 3), 2, [0, 1, 1, 1])
    yield _case("SpaceToBatch", np.float32, (1, 3, 3, 1), 3, [1, 2, 0, 0], index=np.int64)
    yield _case("BatchToSpace", np.float32, (9, 1, 1, 2), 3, [0, 0, 0, 0], index=np.int64)
    yield _case("SpaceToBatch", np.float32, (0, 4, 4, 1), 2, [0, 0, 0, 0])
    yield _case("SpaceToBatch", np.float32, (4, 4, 1), 2, [0, 0, 0, 0],
                error="Input rank should be: 4instead of: 3")
    yield _case("BatchToSpace", np.float32, (4, 1, 1), 2, [0, 0, 0, 0],
                error="Input rank should be: 4instead of: 3")
    yield _case("SpaceToBatch", np.float32, (1, 3, 4, 1), 2, [0, 0, 0, 0],
                error="not divisible by block_shape")
    yield _case("BatchToSpace", np.float32, (3, 2, 2, 1), 2, [0, 0, 0, 0],
                error="is not divisible by product of block sizes")
