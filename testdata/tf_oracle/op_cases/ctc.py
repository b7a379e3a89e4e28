"""CTC: CTCGreedyDecoder and CTCLoss (float, double). The decoders return
sparse paths as TensorFlow does (indices, values, dense_shape per path).
CTCLossV2 is cuDNN-only (no CPU kernel)."""
import numpy as np

from op_case import OpCase, data

F32, F64 = np.float32, np.float64


def _greedy(dtype, shape, lens, merge=False, blank=-1, variant="", values=None, **kw):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = f"CTCGreedyDecoder/{np.dtype(dtype).name}{list(shape)}/merge={merge},blank={blank}"
    name = (name + variant).replace(" ", "")

    def build():
        x = tf.compat.v1.placeholder(dtype, None, name="x")
        s = tf.compat.v1.placeholder(np.int32, None, name="s")
        out = tf.raw_ops.CTCGreedyDecoder(inputs=x, sequence_length=s, merge_repeated=merge,
                                          blank_index=blank)
        v = data(name, dtype, shape) if values is None else np.array(values, dtype)
        return list(out), {x: v, s: np.array(lens, np.int32)}
    return OpCase(name, ["CTCGreedyDecoder"], build, **kw)


def _greedy_cases():
    # Few classes and long sequences: repeats and blanks happen.
    for dtype in (F32, F64):
        for merge in (False, True):
            for blank in (-1, 0, 2):
                yield _greedy(dtype, (12, 3, 3), [12, 5, 0], merge, blank)
    yield _greedy(F32, (6, 2, 4), [6, 6], True, variant="/ties",
                  values=np.tile([1.0, 1.0, 0.5, 0.2], (6, 2, 1)))
    yield _greedy(F32, (4, 2, 3), [4, 5], variant="/too_long",
                  expect_error=r"sequence_length\(1\) <= 4")
    yield _greedy(F32, (4, 2, 3), [4, 4], blank=3, variant="/bad_blank",
                  expect_error="blank_index expected to be between -3 and 2 but was 3")
    yield _greedy(F32, (4, 2, 3), [4], variant="/bad_len",
                  expect_error="len\\(sequence_length\\) != batch_size")
    yield _greedy(F32, (0, 2, 3), [0, 0], variant="/empty",
                  expect_error="inputs must not be empty")


def cases():
    yield from _greedy_cases()
