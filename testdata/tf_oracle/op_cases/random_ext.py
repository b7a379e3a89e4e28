"""The rejection-sampling random ops: gamma, Poisson, binomial and the
parameterized truncated normal, seeded, stateless and on a tf.random.Generator
state (tf.random.gamma/poisson/stateless_*, tf.random.Generator.binomial,
TF-Probability samplers). Seeded samples must be TensorFlow's own samples."""
import numpy as np

from op_case import OpCase, data

_FLOATS = ("float16", "float32", "float64")
_POISSON = ("float16", "float32", "float64", "int32", "int64")


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _c(v, dt=np.int64):
    return _tf().constant(np.array(v, dtype=dt))


def _deprecated(successor, op, producer, drop_inputs=(), drop_attrs=()):
    """An edit building `op` from its successor's node: renamed, with the
    successor-only inputs and attrs removed, at an older producer."""
    def edit(graph_def):
        for node in graph_def.node:
            if node.op != successor:
                continue
            node.op = op
            kept = [x for i, x in enumerate(node.input) if i not in drop_inputs]
            del node.input[:]
            node.input.extend(kept)
            for a in drop_attrs:
                del node.attr[a]
        graph_def.versions.producer = producer
    return edit


def _gamma_cases():
    tf = _tf()
    raw = tf.raw_ops
    alphas = [0.3, 1.0, 2.5, 40.0]
    for dt in _FLOATS:
        for sdt in (np.int32, np.int64):
            def gamma(dt=dt, sdt=sdt):
                alpha = _c(alphas, dt)
                return [raw.RandomGamma(shape=_c([3, 2], sdt), alpha=alpha, seed=5, seed2=7),
                        raw.RandomGamma(shape=_c([], sdt), alpha=_c(0.7, dt), seed=1, seed2=0)], {}
            yield OpCase(f"RandomGamma/{dt}/{np.dtype(sdt).name}", ["RandomGamma"], gamma)

        def gamma_empty(dt=dt):
            return [raw.RandomGamma(shape=_c([0, 2]), alpha=_c(alphas, dt), seed=5, seed2=7),
                    raw.RandomGamma(shape=_c([2]), alpha=_c(np.zeros([0]), dt), seed=5)], {}
        yield OpCase(f"RandomGamma/{dt}/empty", ["RandomGamma"], gamma_empty)

        def stateless_gamma(dt=dt):
            alpha = _c([[0.5, 1.0, 3.0], [0.2, 7.0, 1.0]], dt)
            a = raw.StatelessRandomGammaV2(shape=_c([4, 2, 3], np.int32), seed=_c([3, 4]),
                                           alpha=alpha)
            key, counter, alg = raw.StatelessRandomGetKeyCounterAlg(
                seed=_c([3, 4]))
            b = raw.StatelessRandomGammaV3(shape=_c([4, 2, 3], np.int32), key=key, counter=counter,
                                           alg=alg, alpha=alpha)
            c = raw.StatelessRandomGammaV2(shape=_c([0, 2, 3], np.int64), seed=_c([3, 4], np.int32),
                                           alpha=alpha)
            return [a, b, c], {}
        yield OpCase(f"StatelessRandomGammaV2/{dt}", ["StatelessRandomGammaV2",
                                                      "StatelessRandomGammaV3"], stateless_gamma)

    def gamma_scalar_shape():
        shape = tf.compat.v1.placeholder(tf.int32, None, name="shape")
        return [raw.RandomGamma(shape=shape, alpha=_c([1.5], np.float32), seed=1)], {
            shape: np.array(3, np.int32)}
    yield OpCase("RandomGamma/float32/scalar_shape", ["RandomGamma"], gamma_scalar_shape,
                 expect_error=r"shape must be a vector of \{int32,int64\}, got shape: "
                              r"Tensor<type: int32 shape: \[\] values: 3>")

    def gamma_bad_shape():
        return [raw.StatelessRandomGammaV2(shape=_c([4, 2]), seed=_c([3, 4]),
                                           alpha=_c([1.0, 2.0, 3.0], np.float32))], {}
    yield OpCase("StatelessRandomGammaV2/float32/bad_shape", ["StatelessRandomGammaV2"],
                 gamma_bad_shape, expect_error="Shape passed in must end with broadcasted shape")

    def gamma_bad_alg():
        key = tf.compat.v1.placeholder(tf.uint64, [None], name="key")
        out = raw.StatelessRandomGammaV3(shape=_c([2], np.int32), key=key,
                                         counter=_c([0, 0], np.uint64),
                                         alg=_c(2, np.int32), alpha=_c(1.5, np.float32))
        return [out], {key: np.array([7], np.uint64)}
    yield OpCase("StatelessRandomGammaV3/float32/threefry", ["StatelessRandomGammaV3"],
                 gamma_bad_alg, expect_error="Unsupported algorithm id: 2")


def _poisson_cases():
    tf = _tf()
    raw = tf.raw_ops
    rates = [0.5, 3.0, 9.5, 12.0, 150.0]
    pairs = [(r, "int64") for r in _POISSON] + [("float64", o) for o in _POISSON if o != "int64"]
    for rdt, odt in pairs:
        def poisson(rdt=rdt, odt=odt):
            rate = _c(rates if rdt.startswith("float") else [1, 3, 9, 12, 150], rdt)
            a = raw.RandomPoissonV2(shape=_c([3, 2], np.int32), rate=rate, seed=9, seed2=2,
                                    dtype=tf.as_dtype(odt))
            b = raw.StatelessRandomPoisson(shape=_c([4, 5], np.int32), seed=_c([1, 2]), lam=rate,
                                           dtype=tf.as_dtype(odt))
            return [a, b], {}
        yield OpCase(f"RandomPoissonV2/{rdt}/{odt}", ["RandomPoissonV2", "StatelessRandomPoisson"],
                     poisson)

    def poisson_empty():
        return [raw.RandomPoissonV2(shape=_c([0], np.int32), rate=_c(rates, np.float32), seed=9),
                raw.RandomPoissonV2(shape=_c([3], np.int32), rate=_c(np.zeros([0, 2]), np.float32),
                                    seed=9),
                raw.StatelessRandomPoisson(shape=_c([0, 5], np.int32), seed=_c([1, 2]),
                                           lam=_c(rates, np.float32), dtype=tf.int32)], {}
    yield OpCase("RandomPoissonV2/float32/empty", ["RandomPoissonV2", "StatelessRandomPoisson"],
                 poisson_empty)

    for dt in _FLOATS:
        def deprecated(dt=dt):
            return [raw.RandomPoissonV2(shape=_c([4], np.int32), rate=_c(rates, dt), seed=3,
                                        seed2=4, dtype=tf.as_dtype(dt))], {}
        yield OpCase(f"RandomPoisson/{dt}", ["RandomPoisson"], deprecated,
                     edit=_deprecated("RandomPoissonV2", "RandomPoisson", 24, drop_attrs=("R",)))

    def removed():
        return [raw.RandomPoissonV2(shape=_c([4], np.int32), rate=_c(rates, np.float32), seed=3,
                                    dtype=tf.float32)], {}
    yield OpCase("RandomPoisson/float32/removed", ["RandomPoisson"], removed,
                 edit=_deprecated("RandomPoissonV2", "RandomPoisson", 25, drop_attrs=("R",)),
                 expect_error="Op RandomPoisson is not available in GraphDef version 25")


def _binomial_cases():
    tf = _tf()
    raw = tf.raw_ops
    counts = [5.0, 40.0, 300.0]
    probs = [[0.1], [0.45], [0.8], [0.97]]
    for tdt in _FLOATS:
        for odt in ("int64", "float32") if tdt != "float64" else _POISSON:
            def binomial(tdt=tdt, odt=odt):
                c = _c(counts, tdt)
                p = _c(probs, tdt)
                a = raw.StatelessRandomBinomial(shape=_c([3, 4, 3], np.int32), seed=_c([5, 6]),
                                                counts=c, probs=p, dtype=tf.as_dtype(odt))
                edge = raw.StatelessRandomBinomial(
                    shape=_c([2, 4], np.int32), seed=_c([5, 6]), counts=_c([0, 7, 7, 7], tdt),
                    probs=_c([0.5, 0.0, 1.0, -1.0], tdt), dtype=tf.as_dtype(odt))
                return [a, edge], {}
            yield OpCase(f"StatelessRandomBinomial/{tdt}/{odt}", ["StatelessRandomBinomial"],
                         binomial)

    def binomial_bad():
        return [raw.StatelessRandomBinomial(shape=_c([3, 2], np.int32), seed=_c([5, 6]),
                                            counts=_c(counts, np.float32),
                                            probs=_c([0.5], np.float32))], {}
    yield OpCase("StatelessRandomBinomial/float32/bad_shape", ["StatelessRandomBinomial"],
                 binomial_bad, expect_error="Shape passed in must end with broadcasted shape")

    for tdt, odt in (("float64", "int64"), ("float32", "float32"), ("float16", "int32")):
        def stateful(tdt=tdt, odt=odt):
            h = raw.VarHandleOp(dtype=tf.int64, shape=[3], shared_name=f"rng_binomial_{tdt}")
            # A computed value: TensorFlow's kernel writes the new state into
            # the buffer it had before copying a shared one (a Const's).
            init = raw.AssignVariableOp(resource=h, value=_c([99, -3, 2**41 + 1]) + 0)
            kwargs = dict(resource=h, algorithm=_c(1), shape=_c([5, 3], np.int32),
                          counts=_c(counts, tdt), probs=_c([0.3, 0.6, 0.05], tdt),
                          dtype=tf.as_dtype(odt))
            with tf.control_dependencies([init]):
                a = raw.StatefulRandomBinomial(**kwargs)
            with tf.control_dependencies([a]):
                b = raw.StatefulRandomBinomial(**kwargs)
            with tf.control_dependencies([b]):
                after = raw.ReadVariableOp(resource=h, dtype=tf.int64)
            return [a, b, after], {}
        yield OpCase(f"StatefulRandomBinomial/{tdt}/{odt}", ["StatefulRandomBinomial"], stateful)


# (mean, stddev, minval, maxval) reaching each of the three samplers.
_PTN_PARAMS = {
    "randn": (0.5, 2.0, -3.0, 4.0),
    "uniform": (0.0, 1.0, 0.1, 0.4),
    "exponential": (1.0, 0.5, 3.0, 9.0),
    "flipped": (0.0, 1.0, -np.inf, -2.5),
}


def _ptn_cases():
    tf = _tf()
    raw = tf.raw_ops
    for dt in _FLOATS:
        for kind, (mean, std, lo, hi) in _PTN_PARAMS.items():
            def ptn(dt=dt, mean=mean, std=std, lo=lo, hi=hi):
                a = raw.ParameterizedTruncatedNormal(
                    shape=_c([3, 7], np.int32), means=_c(mean, dt), stdevs=_c(std, dt),
                    minvals=_c(lo, dt), maxvals=_c(hi, dt), seed=4, seed2=9)
                b = raw.StatelessParameterizedTruncatedNormal(
                    shape=_c([5, 3], np.int32), seed=_c([7, 8]), means=_c(mean, dt),
                    stddevs=_c(std, dt), minvals=_c(lo, dt), maxvals=_c(hi, dt))
                return [a, b], {}
            yield OpCase(f"ParameterizedTruncatedNormal/{dt}/{kind}",
                         ["ParameterizedTruncatedNormal", "StatelessParameterizedTruncatedNormal"],
                         ptn, rtol=1e-3 if dt == "float16" else None)

        def per_batch(dt=dt):
            cols = list(zip(*_PTN_PARAMS.values()))
            a = raw.ParameterizedTruncatedNormal(
                shape=_c([4, 3], np.int64), means=_c(cols[0], dt), stdevs=_c(cols[1], dt),
                minvals=_c(cols[2], dt), maxvals=_c(cols[3], dt), seed=4, seed2=9)
            b = raw.StatelessParameterizedTruncatedNormal(
                shape=_c([3, 4], np.int64), seed=_c([7, 8]), means=_c(cols[0], dt),
                stddevs=_c([1.5], dt), minvals=_c(cols[2], dt), maxvals=_c(cols[3], dt))
            return [a, b], {}
        yield OpCase(f"ParameterizedTruncatedNormal/{dt}/per_batch",
                     ["ParameterizedTruncatedNormal", "StatelessParameterizedTruncatedNormal"],
                     per_batch, rtol=1e-3 if dt == "float16" else None)

    def ptn_bad():
        x = tf.compat.v1.placeholder(tf.float32, [], name="std")
        return [raw.StatelessParameterizedTruncatedNormal(
            shape=_c([2], np.int32), seed=_c([7, 8]), means=_c(0.0, np.float32), stddevs=x,
            minvals=_c(-1.0, np.float32), maxvals=_c(1.0, np.float32))], {x: np.float32(-1)}
    yield OpCase("StatelessParameterizedTruncatedNormal/float32/bad_stddev",
                 ["StatelessParameterizedTruncatedNormal"], ptn_bad,
                 expect_error="Invalid parameters")

    def ptn_empty_shape():
        shape = tf.compat.v1.placeholder(tf.int32, None, name="shape")
        return [raw.ParameterizedTruncatedNormal(
            shape=shape, means=_c(0.0, np.float32), stdevs=_c(1.0, np.float32),
            minvals=_c(-1.0, np.float32), maxvals=_c(1.0, np.float32), seed=4)], {
                shape: np.zeros([0], np.int32)}
    yield OpCase("ParameterizedTruncatedNormal/float32/empty_shape",
                 ["ParameterizedTruncatedNormal"], ptn_empty_shape,
                 expect_error=r"Shape tensor must not be empty, got Tensor<type: int32 "
                              r"shape: \[0\] values: >")

    def ptn_empty():
        return [raw.ParameterizedTruncatedNormal(
            shape=_c([0, 3], np.int32), means=_c(0.0, np.float32), stdevs=_c(1.0, np.float32),
            minvals=_c(-1.0, np.float32), maxvals=_c(1.0, np.float32), seed=4)], {}
    yield OpCase("ParameterizedTruncatedNormal/float32/empty", ["ParameterizedTruncatedNormal"],
                 ptn_empty)


def _standard_normal_v1_cases():
    tf = _tf()
    raw = tf.raw_ops
    for dt in ("float32", "float64", "float16", "bfloat16"):
        def normal(dt=dt):
            h = raw.VarHandleOp(dtype=tf.int64, shape=[4], shared_name=f"rng_v1_{dt}")
            init = raw.AssignVariableOp(resource=h, value=_c([1, 77, -2, 2**50 + 9]))
            with tf.control_dependencies([init]):
                a = raw.StatefulStandardNormalV2(resource=h, algorithm=_c(1), shape=_c([3, 5]),
                                                 dtype=tf.as_dtype(dt))
            with tf.control_dependencies([a]):
                after = raw.ReadVariableOp(resource=h, dtype=tf.int64)
            # .npy has no bfloat16: compared as float32 (exact).
            return [tf.cast(a, tf.float32) if dt == "bfloat16" else a, after], {}
        yield OpCase(f"StatefulStandardNormal/{dt}", ["StatefulStandardNormal"], normal,
                     edit=_deprecated("StatefulStandardNormalV2", "StatefulStandardNormal", 28,
                                      drop_inputs=(1,)))

    def removed():
        h = raw.VarHandleOp(dtype=tf.int64, shape=[4], shared_name="rng_v1_removed")
        return [raw.StatefulStandardNormalV2(resource=h, algorithm=_c(1), shape=_c([2]))], {}
    yield OpCase("StatefulStandardNormal/float32/removed", ["StatefulStandardNormal"], removed,
                 edit=_deprecated("StatefulStandardNormalV2", "StatefulStandardNormal", 29,
                                  drop_inputs=(1,)),
                 expect_error="Op StatefulStandardNormal is not available in GraphDef version 29")


_TRUE = [[1, 5], [7, 2], [0, 9], [9, 9]]


def _sampler_cases():
    tf = _tf()
    raw = tf.raw_ops
    for op in ("UniformCandidateSampler", "LogUniformCandidateSampler",
               "LearnedUnigramCandidateSampler", "ThreadUnsafeUnigramCandidateSampler"):
        for unique, range_max, num in ((False, 20, 6), (True, 12, 10), (True, 1000, 7),
                                       (False, 64, 3)):
            def sampler(op=op, unique=unique, range_max=range_max, num=num):
                outs = getattr(raw, op)(true_classes=_c(_TRUE), num_true=2, num_sampled=num,
                                        unique=unique, range_max=range_max, seed=3, seed2=21)
                return list(outs), {}
            yield OpCase(f"{op}/{'unique' if unique else 'any'}/{range_max}/{num}", [op], sampler)

        def too_small(op=op):
            return list(getattr(raw, op)(true_classes=_c(_TRUE), num_true=2, num_sampled=8,
                                         unique=True, range_max=5, seed=3)), {}
        yield OpCase(f"{op}/range_too_small", [op], too_small,
                     expect_error="Sampler's range is too small")

        def out_of_range(op=op):
            return list(getattr(raw, op)(true_classes=_c([[3, 30]]), num_true=2, num_sampled=2,
                                         unique=False, range_max=20, seed=3)), {}
        yield OpCase(f"{op}/true_out_of_range", [op], out_of_range,
                     expect_error=r"`true_candidate` out of range \[0, 20\), received 30")

    unigrams = [3.0, 1.0, 0.5, 8.0, 2.0, 2.0, 1.0, 0.25, 4.0, 6.0]
    for unique, dist, reserved, shards, shard in ((False, 1.0, 0, 1, 0), (True, 0.75, 0, 1, 0),
                                                  (False, 0.5, 2, 2, 1), (True, 1.0, 3, 1, 0)):
        size = len([i for i in range(reserved + len(unigrams)) if i % shards == shard])

        def fixed(unique=unique, dist=dist, reserved=reserved, shards=shards, shard=shard,
                  size=size):
            outs = raw.FixedUnigramCandidateSampler(
                true_classes=_c([[0, 1], [2, 3]]), num_true=2, num_sampled=4, unique=unique,
                range_max=size, unigrams=unigrams, distortion=dist, num_reserved_ids=reserved,
                num_shards=shards, shard=shard, seed=7, seed2=1)
            return list(outs), {}
        yield OpCase(f"FixedUnigramCandidateSampler/{unique}/{dist}/{reserved}/{shards}",
                     ["FixedUnigramCandidateSampler"], fixed)

    def fixed_file():
        path = "/tmp/dfg_oracle_random_ext_vocab.csv"
        with open(path, "w") as f:
            f.write("".join(f"w{i},x,{w}\n" for i, w in enumerate(unigrams)))
        outs = raw.FixedUnigramCandidateSampler(
            true_classes=_c([[0], [9]]), num_true=1, num_sampled=5, unique=True,
            range_max=len(unigrams), vocab_file=path, distortion=0.8, seed=7, seed2=1)
        return list(outs), {}
    yield OpCase("FixedUnigramCandidateSampler/vocab_file", ["FixedUnigramCandidateSampler"],
                 fixed_file)

    def fixed_bad():
        return list(raw.FixedUnigramCandidateSampler(
            true_classes=_c([[0]]), num_true=1, num_sampled=2, unique=False, range_max=4,
            unigrams=[1.0, 2.0], seed=7)), {}
    yield OpCase("FixedUnigramCandidateSampler/bad_range", ["FixedUnigramCandidateSampler"],
                 fixed_bad, expect_error="range is 4 must be equal to weights size")

    def all_sampler():
        return list(raw.AllCandidateSampler(true_classes=_c(_TRUE), num_true=2, num_sampled=10,
                                            unique=True, seed=1)), {}
    yield OpCase("AllCandidateSampler/int64", ["AllCandidateSampler"], all_sampler)

    def hits():
        out = raw.ComputeAccidentalHits(true_classes=_c(_TRUE), sampled_candidates=_c(
            [5, 3, 9, 5, 0]), num_true=2)
        empty = raw.ComputeAccidentalHits(true_classes=_c(_TRUE), sampled_candidates=_c(
            [4, 6]), num_true=2)
        return list(out) + list(empty), {}
    yield OpCase("ComputeAccidentalHits/int64", ["ComputeAccidentalHits"], hits)


def _crop_edit(producer):
    """RandomCrop from a Reshape(image, size) node: renamed, its attrs made
    RandomCrop's (T, seed, seed2)."""
    def edit(graph_def):
        for node in graph_def.node:
            if node.op == "Reshape":
                node.op = "RandomCrop"
                del node.attr["Tshape"]
                node.attr["seed"].i = 6
                node.attr["seed2"].i = 13
        graph_def.versions.producer = producer
    return edit


def _box_cases():
    tf = _tf()
    raw = tf.raw_ops
    boxes = [[[0.1, 0.2, 0.5, 0.6], [0.3, 0.05, 0.9, 0.7]]]
    for dt in ("uint8", "int8", "int16", "int32", "int64"):
        def box(dt=dt):
            size = _c([120, 90, 3], dt)
            a = raw.SampleDistortedBoundingBox(image_size=size,
                                               bounding_boxes=_c(boxes, np.float32),
                                               seed=3, seed2=4, min_object_covered=0.3)
            b = raw.SampleDistortedBoundingBoxV2(
                image_size=size, bounding_boxes=_c(boxes, np.float32),
                min_object_covered=_c(0.5, np.float32), seed=8, seed2=1,
                aspect_ratio_range=[0.5, 2.0], area_range=[0.1, 0.9], max_attempts=50)
            c = raw.StatelessSampleDistortedBoundingBox(
                image_size=size, bounding_boxes=_c(np.zeros([1, 0, 4]), np.float32),
                min_object_covered=_c(0.1, np.float32), seed=_c([5, 9]),
                use_image_if_no_bounding_boxes=True)
            return list(a) + list(b) + list(c), {}
        yield OpCase(f"SampleDistortedBoundingBox/{dt}",
                     ["SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2",
                      "StatelessSampleDistortedBoundingBox"], box)

    def never():
        return list(raw.StatelessSampleDistortedBoundingBox(
            image_size=_c([10, 10, 1], np.int32),
            bounding_boxes=_c([[[0, 0, 0.1, 0.1]]], np.float32),
            min_object_covered=_c(1.0, np.float32), seed=_c([1, 1]), area_range=[0.9, 1.0],
            max_attempts=3)), {}
    yield OpCase("StatelessSampleDistortedBoundingBox/int32/fallback",
                 ["StatelessSampleDistortedBoundingBox"], never)

    def no_boxes():
        return list(raw.SampleDistortedBoundingBoxV2(
            image_size=_c([10, 10, 1], np.int32),
            bounding_boxes=_c(np.zeros([1, 0, 4]), np.float32),
            min_object_covered=_c(0.1, np.float32), seed=1)), {}
    yield OpCase("SampleDistortedBoundingBoxV2/int32/no_boxes", ["SampleDistortedBoundingBoxV2"],
                 no_boxes, expect_error="No bounding boxes provided as input")

    for dt, shape, size in (("float32", (7, 9, 3), (4, 5)), ("uint8", (5, 5, 2), (5, 5)),
                            ("int64", (6, 4, 1), (6, 1)), ("float64", (3, 8, 2), (2, 8)),
                            ("int8", (4, 6, 2), (3, 2)), ("int16", (9, 2, 1), (4, 2)),
                            ("int32", (5, 7, 3), (1, 1))):
        def crop(dt=dt, shape=shape, size=size):
            image = _c(np.arange(np.prod(shape)).reshape(shape), dt)
            sz = tf.compat.v1.placeholder(tf.int64, [2], name="size")
            return [raw.Reshape(tensor=image, shape=sz)], {sz: np.array(size, np.int64)}
        yield OpCase(f"RandomCrop/{dt}{list(shape)}".replace(" ", ""), ["RandomCrop"], crop,
                     edit=_crop_edit(7))

    def crop_removed():
        image = _c(np.zeros([4, 4, 1]), np.float32)
        sz = tf.compat.v1.placeholder(tf.int64, [2], name="size")
        return [raw.Reshape(tensor=image, shape=sz)], {sz: np.array([2, 2], np.int64)}
    yield OpCase("RandomCrop/float32/removed", ["RandomCrop"], crop_removed, edit=_crop_edit(8),
                 expect_error="Op RandomCrop is not available in GraphDef version 8")


def _misc_cases():
    tf = _tf()
    raw = tf.raw_ops
    for dt, sdt in (("int32", "int64"), ("uint32", "uint32"), ("int64", "int32"),
                    ("uint64", "uint64")):
        def shuffle(dt=dt, sdt=sdt):
            idx = _c(np.arange(12), dt)
            a = raw.RandomIndexShuffle(index=idx, seed=_c([1, 2, 3], sdt), max_index=_c(11, dt))
            b = raw.RandomIndexShuffle(index=_c(5, dt), seed=_c([7, 8, 9], sdt),
                                       max_index=_c(2**20 + 7, dt), rounds=6)
            c = raw.RandomIndexShuffle(index=_c([0, 3, 9], dt), seed=_c([[1, 2, 3], [4, 5, 6],
                                                                          [7, 8, 9]], sdt),
                                       max_index=_c([0, 100000, 2**31 - 1], dt))
            return [a, b, c], {}
        yield OpCase(f"RandomIndexShuffle/{dt}/{sdt}", ["RandomIndexShuffle"], shuffle)

    for tin in ("float16", "bfloat16", "float32", "float64"):
        for tout in ("int8", "int16", "int32"):
            def cast(tin=tin, tout=tout):
                x = np.array([0.5, -0.5, 1.25, -7.75, 3.0, 300.0, -300.0, 70000.0, np.nan,
                              2.5, 0.1, -0.9, 12.3, -100.6, 5.5, 0.75, 1e9, -1e9, 6.25],
                             np.float32)
                v = tf.cast(_c(x, np.float32), tf.as_dtype(tin))
                key, counter, alg = raw.StatelessRandomGetKeyCounterAlg(seed=_c([3, 4]))
                # No Python wrapper: the node is made directly.
                # pylint: disable-next=import-outside-toplevel
                from tensorflow.core.framework import attr_value_pb2
                graph = tf.compat.v1.get_default_graph()
                op = graph.create_op(
                    "StochasticCastToInt", [v, key, counter, alg], [tf.as_dtype(tout)],
                    attrs={"Tin": attr_value_pb2.AttrValue(type=v.dtype.as_datatype_enum),
                           "Tout": attr_value_pb2.AttrValue(
                               type=tf.as_dtype(tout).as_datatype_enum)})
                return [op.outputs[0]], {}
            yield OpCase(f"StochasticCastToInt/{tin}/{tout}", ["StochasticCastToInt"], cast)


def _skipgram_edit(attrs, producer=18):
    """Skipgram from an Unpack node of 7 outputs: renamed, no inputs, its
    attrs Skipgram's."""
    def edit(graph_def):
        for node in graph_def.node:
            if node.op != "Unpack":
                continue
            node.op = "Skipgram"
            del node.input[:]
            for a in ("T", "num", "axis"):
                del node.attr[a]
            for k, v in attrs.items():
                if isinstance(v, str):
                    node.attr[k].s = v.encode()
                elif isinstance(v, float):
                    node.attr[k].f = v
                else:
                    node.attr[k].i = v
        graph_def.versions.producer = producer
    return edit


def _corpus(path, ties):
    rng = np.random.default_rng(7 if ties else 8)
    vocab = [f"w{i}" for i in range(40)]
    weights = np.arange(40, 0, -1, dtype=np.float64) if ties else 1.5 ** -np.arange(40)
    words = rng.choice(vocab, size=2500, p=weights / weights.sum())
    with open(path, "w") as f:
        for i in range(0, len(words), 17):
            f.write(" ".join(words[i:i + 17]) + ("\n" if i % 2 else "\t\n"))


def _word2vec_cases():
    tf = _tf()
    raw = tf.raw_ops
    for ties, subsample in ((False, 1e-3), (True, 0.0), (True, 1e-2)):
        path = f"/tmp/dfg_oracle_random_ext_corpus_{int(ties)}.txt"
        attrs = dict(filename=path, batch_size=40, window_size=3, min_count=2,
                     subsample=subsample)

        def skipgram(path=path, ties=ties):
            _corpus(path, ties)
            return list(raw.Unpack(value=_c(np.zeros(7), np.float32), num=7)), {}
        yield OpCase(f"Skipgram/ties{int(ties)}/sub{subsample}", ["Skipgram"], skipgram,
                     edit=_skipgram_edit(attrs))

    def too_little():
        path = "/tmp/dfg_oracle_random_ext_small.txt"
        with open(path, "w") as f:
            f.write("a b c a b\n")
        return list(raw.Unpack(value=_c(np.zeros(7), np.float32), num=7)), {}
    yield OpCase("Skipgram/too_little", ["Skipgram"], too_little,
                 edit=_skipgram_edit(dict(filename="/tmp/dfg_oracle_random_ext_small.txt",
                                          batch_size=4)),
                 expect_error="contains too little data: 5 words")

    def removed():
        _corpus("/tmp/dfg_oracle_random_ext_corpus_0.txt", False)
        return list(raw.Unpack(value=_c(np.zeros(7), np.float32), num=7)), {}
    yield OpCase("Skipgram/removed", ["Skipgram"], removed,
                 edit=_skipgram_edit(dict(filename="/tmp/dfg_oracle_random_ext_corpus_0.txt",
                                          batch_size=4), producer=19),
                 expect_error="Op Skipgram is not available in GraphDef version 19")

    def negtrain():
        w_in = tf.compat.v1.Variable(data("w_in", np.float32, (3, 4), "unit"), use_resource=False,
                                     name="w_in")
        w_out = tf.compat.v1.Variable(data("w_out", np.float32, (3, 4), "unit"),
                                      use_resource=False, name="w_out")
        with tf.control_dependencies([w_in.initializer, w_out.initializer]):
            tf.identity(_c([1, 0, 2, 2], np.int32), name="examples")
            tf.identity(_c([2, 1, 0, 2], np.int32), name="labels")
            tf.identity(_c(0.3, np.float32), name="lr")
            step = tf.no_op(name="negtrain")
        with tf.control_dependencies([step]):
            a = raw.Identity(input=w_in._ref())  # pylint: disable=protected-access
            b = raw.Identity(input=w_out._ref())  # pylint: disable=protected-access
        return [a, b], {}

    def negtrain_edit(graph_def):
        for node in graph_def.node:
            if node.name == "negtrain":
                node.op = "NegTrain"
                controls = list(node.input)
                del node.input[:]
                node.input.extend(["w_in", "w_out", "examples", "labels", "lr"] + controls)
                node.attr["vocab_count"].list.i.extend([0, 0, 5])
                node.attr["num_negative_samples"].i = 3
        graph_def.versions.producer = 18
    yield OpCase("NegTrain/float32", ["NegTrain"], negtrain, edit=negtrain_edit)


def cases():
    yield from _word2vec_cases()
    yield from _misc_cases()
    yield from _box_cases()
    yield from _sampler_cases()
    yield from _gamma_cases()
    yield from _poisson_cases()
    yield from _binomial_cases()
    yield from _ptn_cases()
    yield from _standard_normal_v1_cases()
