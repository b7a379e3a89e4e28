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


def _loss(dtype, time, classes, labels, lens, variant="", **attrs):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    expect_error = attrs.pop("expect_error", None)
    batch = len(lens)
    name = (f"CTCLoss/{np.dtype(dtype).name}[{time},{batch},{classes}]/"
            + ",".join(f"{k}={int(v)}" for k, v in attrs.items()) + variant).replace(" ", "")
    indices = [[b, i] for b, row in enumerate(labels) for i in range(len(row))]
    values = [v for row in labels for v in row]

    def build():
        x = tf.compat.v1.placeholder(dtype, None, name="x")
        ix = tf.compat.v1.placeholder(np.int64, None, name="ix")
        vals = tf.compat.v1.placeholder(np.int32, None, name="vals")
        s = tf.compat.v1.placeholder(np.int32, None, name="s")
        out = tf.raw_ops.CTCLoss(inputs=x, labels_indices=ix, labels_values=vals,
                                 sequence_length=s, **attrs)
        return list(out), {x: data(name, dtype, (time, batch, classes)),
                           ix: np.array(indices, np.int64).reshape(-1, 2),
                           vals: np.array(values, np.int32), s: np.array(lens, np.int32)}
    return OpCase(name, ["CTCLoss"], build, expect_error=expect_error)


def _loss_cases():
    labels = [[1, 2, 2, 0], [3], [0, 0, 1]]
    for dtype in (F32, F64):
        for collapse in (False, True):
            for merge in (False, True):
                yield _loss(dtype, 9, 5, labels, [9, 6, 7], preprocess_collapse_repeated=collapse,
                            ctc_merge_repeated=merge)
    yield _loss(F32, 9, 5, [[1, 2, 4, 4], [3], [0]], [9, 6, 7], variant="/null_tail")
    yield _loss(F32, 6, 4, [[1, 2, 1, 2, 1], [2]], [3, 0],
                ignore_longer_outputs_than_inputs=True)
    yield _loss(F32, 6, 4, [[1, 2, 1, 2, 1], [2]], [3, 6], variant="/too_short",
                expect_error="Not enough time for target transition sequence "
                             r"\(required: 5, available: 3\)0")
    yield _loss(F32, 6, 4, [[1, 2], []], [6, 6], variant="/no_labels",
                expect_error="Labels length is zero in batch 1")
    yield _loss(F32, 6, 4, [[1, 3, 2], [2]], [6, 6], variant="/null_inside",
                expect_error="Saw a non-null label")
    yield _loss(F32, 6, 4, [[1, -1], [2]], [6, 6], variant="/negative",
                expect_error="All labels must be nonnegative integers, batch: 0 labels: 1,-1")
    yield _loss(F32, 6, 4, [[1], [2]], [7, 6], variant="/long_seq",
                expect_error=r"sequence_length\(0\) <= 6")


def _beam(dtype, shape, lens, width, top, merge=True, variant="", **kw):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    name = (f"CTCBeamSearchDecoder/{np.dtype(dtype).name}{list(shape)}/"
            f"width={width},top={top},merge={merge}{variant}").replace(" ", "")

    def build():
        x = tf.compat.v1.placeholder(dtype, None, name="x")
        s = tf.compat.v1.placeholder(np.int32, None, name="s")
        out = tf.raw_ops.CTCBeamSearchDecoder(inputs=x, sequence_length=s, beam_width=width,
                                              top_paths=top, merge_repeated=merge)
        fetches = list(out.decoded_indices) + list(out.decoded_values) + list(
            out.decoded_shape) + [out.log_probability]
        return fetches, {x: data(name, dtype, shape), s: np.array(lens, np.int32)}
    return OpCase(name, ["CTCBeamSearchDecoder"], build, **kw)


def _beam_cases():
    for dtype in (F32, F64):
        for merge in (True, False):
            yield _beam(dtype, (10, 3, 4), [10, 6, 1], 4, 3, merge)
            yield _beam(dtype, (8, 2, 6), [8, 8], 1, 1, merge)
            yield _beam(dtype, (12, 2, 3), [12, 9], 10, 5, merge)
    yield _beam(F32, (5, 2, 4), [5, 0], 3, 2, variant="/empty_seq",
                expect_error="Less leaves in the beam search than requested")
    yield _beam(F32, (5, 2, 4), [5, 5], 2, 3, variant="/top_over_width",
                expect_error="requested more paths than the beam width")
    yield _beam(F32, (5, 2, 4), [5, 6], 2, 1, variant="/too_long",
                expect_error=r"sequence_length\(1\) <= 5")


def cases():
    yield from _greedy_cases()
    yield from _beam_cases()
    yield from _loss_cases()
