"""TF1 stateful containers: staging areas (Stage, MapStage, OrderedMapStage
families), conditional accumulators, TensorArray v1/v2 and Stack v1. Every
case runs in one step; control dependencies order each put before its get
(a get of what is not there blocks, in TensorFlow as in dfg)."""
import numpy as np

from op_case import OpCase, data

STAGE_TYPES = [np.float32, np.float64, np.int32, np.int64, np.float16, np.bool_, object]


def _case(name, ops, body, **kw):
    """body(tf) -> (fetches, feeds), imported lazily (the TF venv only)."""
    def build():
        import tensorflow as tf  # pylint: disable=import-outside-toplevel
        return body(tf)
    return OpCase(name, ops, build, **kw)


def _tf_dtype(tf, dtype):
    return tf.string if dtype is object else tf.as_dtype(dtype)


def _chain(tf, ops):
    """Runs the op builders in order, each after the previous one."""
    outs = []
    for build in ops:
        deps = tf.nest.flatten(outs[-1]) if outs else []
        with tf.control_dependencies(deps):
            outs.append(build())
    return outs


def _stage(dtype, shape):
    def body(tf):
        dt = _tf_dtype(tf, dtype)
        x = tf.compat.v1.placeholder(dt, shape, name="x")
        y = tf.compat.v1.placeholder(tf.int32, [2], name="y")
        kw = dict(dtypes=[dt, tf.int32], shared_name="area")
        rev = tf.reverse(x, [0]) if len(shape) else x
        s1, s2, size, peek, un, clear = _chain(tf, [
            lambda: tf.raw_ops.Stage(values=[x, y], shared_name="area"),
            lambda: tf.raw_ops.Stage(values=[rev, y * 2], shared_name="area"),
            lambda: tf.raw_ops.StageSize(**kw),
            lambda: tf.raw_ops.StagePeek(index=1, **kw),
            lambda: tf.raw_ops.Unstage(**kw),
            lambda: tf.raw_ops.StageClear(**kw),
        ])
        del s1, s2
        with tf.control_dependencies([clear]):
            after = tf.raw_ops.StageSize(**kw)
        return ([tf.identity(size, name="size"), tf.identity(peek[0], name="peek0"),
                 tf.identity(peek[1], name="peek1"), tf.identity(un[0], name="un0"),
                 tf.identity(un[1], name="un1"), tf.identity(after, name="after")],
                {x: data("stage/" + str(shape), dtype, (int(np.prod(shape)),)).reshape(shape),
                 y: np.array([3, -4], np.int32)})
    return body


def _stage_mismatch(tf):
    x = tf.constant([1.0, 2.0])
    s = tf.raw_ops.Stage(values=[x, x], shared_name="m")
    with tf.control_dependencies([s]):
        u = tf.raw_ops.Unstage(dtypes=[tf.float32], shared_name="m")
    return [tf.identity(u[0], name="u")], {}


def _stage_memory(tf):
    x = tf.compat.v1.placeholder(tf.float32, [4], name="x")
    s = tf.raw_ops.Stage(values=[x], memory_limit=8, shared_name="m")
    with tf.control_dependencies([s]):
        n = tf.raw_ops.StageSize(dtypes=[tf.float32], memory_limit=8, shared_name="m")
    return [tf.identity(n, name="n")], {x: np.arange(4, dtype=np.float32)}


def _stage_capacity(tf):
    """Capacity 2: two puts fit, the third waits for the Unstage before it."""
    kw = dict(dtypes=[tf.int32], capacity=2, shared_name="c")
    put = lambda v: tf.raw_ops.Stage(values=[tf.constant(v)], capacity=2,  # noqa: E731
                                     shared_name="c")
    outs = _chain(tf, [
        lambda: put(1),
        lambda: put(2),
        lambda: tf.raw_ops.Unstage(**kw)[0],
        lambda: put(3),
        lambda: tf.raw_ops.StageSize(**kw),
        lambda: tf.raw_ops.Unstage(**kw)[0],
        lambda: tf.raw_ops.Unstage(**kw)[0],
    ])
    return [tf.identity(outs[2], name="a"), tf.identity(outs[4], name="n"),
            tf.identity(outs[5], name="b"), tf.identity(outs[6], name="c")], {}


def _stage_peek_bad(tf):
    kw = dict(dtypes=[tf.float32], shared_name="p")
    s = tf.raw_ops.Stage(values=[tf.constant(1.0)], shared_name="p")
    with tf.control_dependencies([s]):
        p = tf.raw_ops.StagePeek(index=tf.constant([0]), **kw)
    return [tf.identity(p[0], name="p")], {}


def _map(prefix, dtype):
    """Three keys staged whole, one in two halves; peek, unstage by key,
    unstage the first key, sizes, clear."""
    def body(tf):
        op = lambda name: getattr(tf.raw_ops, prefix + name)  # noqa: E731
        dt = _tf_dtype(tf, dtype)
        x = tf.compat.v1.placeholder(dt, [3, 2], name="x")
        kw = dict(dtypes=[dt, tf.int64], shared_name="map")
        key = lambda k: tf.constant(k, tf.int64)  # noqa: E731
        idx = lambda *i: tf.constant(list(i), tf.int32)  # noqa: E731
        steps = [lambda k=k, i=i: op("Stage")(key=key(k), indices=idx(0, 1),
                                               values=[x[i], tf.constant(k, tf.int64)], **kw)
                 for i, k in enumerate([20, 5, 11])]
        steps += [
            lambda: op("Stage")(key=key(8), indices=idx(1), values=[tf.constant(-8, tf.int64)],
                                **kw),
            lambda: op("IncompleteSize")(**kw),
            lambda: op("Stage")(key=key(8), indices=idx(0), values=[tf.reverse(x[0], [0])], **kw),
            lambda: op("Size")(**kw),
            lambda: op("IncompleteSize")(**kw),
            lambda: op("Peek")(key=key(11), indices=idx(0, 1), dtypes=[dt, tf.int64],
                               shared_name="map"),
            lambda: op("Unstage")(key=key(5), indices=idx(1), dtypes=[tf.int64],
                                  shared_name="map"),
            lambda: op("Unstage")(key=key(5), indices=idx(0), dtypes=[dt], shared_name="map"),
            lambda: op("UnstageNoKey")(indices=idx(0, 1), **kw),
            lambda: op("Size")(**kw),
            lambda: op("Clear")(**kw),
        ]
        outs = _chain(tf, steps)
        with tf.control_dependencies([outs[-1]]):
            after = op("Size")(**kw)
        peek, un1, un0, nokey = outs[8], outs[9], outs[10], outs[11]
        fetches = [outs[4], outs[6], outs[7], peek[0], peek[1], un1[0], un0[0], nokey[0],
                   nokey[1][0], nokey[1][1], outs[12], after]
        return ([tf.identity(f, name=f"out{i}") for i, f in enumerate(fetches)],
                {x: data("map/" + prefix, dtype, (6,)).reshape(3, 2)})
    return body


def _map_error(prefix, what):
    def body(tf):
        op = lambda name: getattr(tf.raw_ops, prefix + name)  # noqa: E731
        kw = dict(dtypes=[tf.float32, tf.float32], shared_name="e")
        one = tf.constant(1.0)
        key = tf.constant(3, tf.int64)
        first = op("Stage")(key=key, indices=[0], values=[one], **kw)
        with tf.control_dependencies([first]):
            if what == "twice":
                out = op("Stage")(key=key, indices=[0], values=[one], **kw)
            elif what == "bounds":
                out = op("Stage")(key=key, indices=[5], values=[one], **kw)
            elif what == "order":
                out = op("Stage")(key=key, indices=[1, 0], values=[one, one], **kw)
            elif what == "key":
                out = op("Stage")(key=tf.constant([1, 2], tf.int64), indices=[0, 1],
                                  values=[one, one], **kw)
            else:  # removed
                full = op("Stage")(key=tf.constant(4, tf.int64), indices=[0, 1],
                                   values=[one, one], **kw)
                with tf.control_dependencies([full]):
                    un = op("Unstage")(key=tf.constant(4, tf.int64), indices=[0],
                                       dtypes=[tf.float32], shared_name="e")
                with tf.control_dependencies(un):
                    out = op("Peek")(key=tf.constant(4, tf.int64), indices=[0],
                                     dtypes=[tf.float32], shared_name="e")[0]
        with tf.control_dependencies([out]):
            n = op("Size")(**kw)
        return [tf.identity(n, name="n")], {}
    return body


MAP_ERRORS = {
    "twice": r"The tensor for index '0' for key '3' was already initialized '2'\.",
    "bounds": r"Index '5' for key '3' was out of bounds '2'\.",
    "order": r"Indices are not strictly ordered",
    "key": r"key must be an int64 scalar, got tensor with shape: \[2\]",
    "removed": r"Tensor at index '0' for key '4' has already been removed\.",
}


def _staging_cases():
    ops = ["Stage", "Unstage", "StagePeek", "StageSize", "StageClear"]
    for dtype in STAGE_TYPES:
        for shape in [(3, 2), (0,), ()]:
            name = np.dtype(dtype).name if dtype is not object else "string"
            yield _case(f"Stage/{name}{list(shape)}", ops, _stage(dtype, shape))
    yield _case("Unstage/mismatch", ["Unstage"], _stage_mismatch,
                expect_error=r"Mismatch stage/unstage: 2 vs\. 1")
    yield _case("Stage/memory-limit", ["Stage"], _stage_memory,
                expect_error=r"Attempted to insert tensors with combined size of '16' bytes "
                             r"into Staging Area with a memory limit of '8'\.")
    yield _case("Stage/capacity", ["Stage", "Unstage", "StageSize"], _stage_capacity)
    yield _case("StagePeek/index-not-scalar", ["StagePeek"], _stage_peek_bad,
                expect_error=r"index must be scalar")
    for prefix in ["Map", "OrderedMap"]:
        ops = [prefix + s for s in ["Stage", "Unstage", "UnstageNoKey", "Peek", "Size",
                                    "IncompleteSize", "Clear"]]
        for dtype in [np.float32, np.float64, np.int32, np.int64, object]:
            name = np.dtype(dtype).name if dtype is not object else "string"
            yield _case(f"{prefix}Stage/{name}", ops, _map(prefix, dtype))
        for what, err in MAP_ERRORS.items():
            yield _case(f"{prefix}Stage/{what}", [prefix + "Stage"], _map_error(prefix, what),
                        expect_error=err)



ACC_DENSE = ["ConditionalAccumulator", "AccumulatorApplyGradient", "AccumulatorNumAccumulated",
             "AccumulatorSetGlobalStep", "AccumulatorTakeGradient"]


def _accumulator(dtype, reduction, resource):
    """Two fresh gradients, a global step of 5, a stale one dropped, a third
    at step 5, then the mean or sum of the three."""
    def body(tf):
        dt = tf.as_dtype(dtype)
        pre = "Resource" if resource else ""
        op = lambda name: getattr(tf.raw_ops, pre + name)  # noqa: E731
        g = tf.compat.v1.placeholder(dt, [3, 2, 2], name="g")
        acc = op("ConditionalAccumulator")(dtype=dt, shape=[2, 2], shared_name="acc",
                                           reduction_type=reduction)
        apply = lambda step, i: op("AccumulatorApplyGradient")(  # noqa: E731
            handle=acc, local_step=tf.constant(step, tf.int64), gradient=g[i])
        num = lambda: op("AccumulatorNumAccumulated")(handle=acc)  # noqa: E731
        outs = _chain(tf, [
            lambda: apply(0, 0), lambda: apply(0, 1), num,
            lambda: op("AccumulatorSetGlobalStep")(handle=acc,
                                                   new_global_step=tf.constant(5, tf.int64)),
            lambda: apply(3, 2), num, lambda: apply(5, 2),
            lambda: op("AccumulatorTakeGradient")(handle=acc, num_required=3, dtype=dt),
            num,
            lambda: apply(6, 0),
            lambda: op("AccumulatorTakeGradient")(handle=acc, num_required=1, dtype=dt),
        ])
        return ([tf.identity(outs[i], name=f"out{i}") for i in (2, 5, 7, 8, 10)],
                {g: data("acc", dtype, (3, 2, 2))})
    return body


def _accumulator_error(what):
    def body(tf):
        acc = tf.raw_ops.ConditionalAccumulator(dtype=tf.float32, shape=[2], shared_name="a")
        if what == "shape":
            out = tf.raw_ops.AccumulatorApplyGradient(
                handle=acc, local_step=tf.constant(0, tf.int64), gradient=tf.zeros([3]))
        else:  # required
            out = tf.raw_ops.AccumulatorTakeGradient(handle=acc, num_required=0,
                                                     dtype=tf.float32)
        with tf.control_dependencies(tf.nest.flatten(out)):
            n = tf.raw_ops.AccumulatorNumAccumulated(handle=acc)
        return [tf.identity(n, name="n")], {}
    return body


ACC_ERRORS = {
    "shape": r"Shape mismatch: expected \[2\], got \[3\]",
    "required": r"Argument num_required must be positive, but was 0",
}
# (A TakeGradient of another dtype than the accumulator's crashes TensorFlow
# 2.21's process; dfg fails with its "Signature mismatch" text.)


def _sparse_accumulator(dtype, reduction, known):
    def body(tf):
        dt = tf.as_dtype(dtype)
        v = tf.compat.v1.placeholder(dt, [7, 3], name="v")
        acc = tf.raw_ops.SparseConditionalAccumulator(
            dtype=dt, shape=[6, 3] if known else tf.TensorShape(None), shared_name="s",
            reduction_type=reduction)
        apply = lambda step, idx, rows: tf.raw_ops.SparseAccumulatorApplyGradient(  # noqa
            handle=acc, local_step=tf.constant(step, tf.int64),
            gradient_indices=tf.constant(idx, tf.int64), gradient_values=tf.gather(v, rows),
            gradient_shape=tf.constant([6, 3], tf.int64), has_known_shape=known)
        outs = _chain(tf, [
            lambda: apply(0, [1, 4], [0, 1]),
            lambda: apply(0, [0, 1, 5], [2, 3, 4]),
            lambda: apply(0, [4, 5], [5, 6]),
            lambda: tf.raw_ops.AccumulatorNumAccumulated(handle=acc),
            lambda: tf.raw_ops.SparseAccumulatorTakeGradient(handle=acc, num_required=2,
                                                             dtype=dt),
        ])
        idx, val, shape = outs[4]
        return ([tf.identity(outs[3], name="n"), tf.identity(idx, name="idx"),
                 tf.identity(val, name="val"), tf.identity(shape, name="shape")],
                {v: data("sparse-acc", dtype, (7, 3))})
    return body


def _sparse_accumulator_error(tf):
    acc = tf.raw_ops.SparseConditionalAccumulator(dtype=tf.float32, shape=[4, 2],
                                                  shared_name="s")
    out = tf.raw_ops.SparseAccumulatorApplyGradient(
        handle=acc, local_step=tf.constant(0, tf.int64),
        gradient_indices=tf.constant([1, 7], tf.int64), gradient_values=tf.ones([2, 2]),
        gradient_shape=tf.constant([4, 2], tf.int64), has_known_shape=True)
    with tf.control_dependencies([out]):
        n = tf.raw_ops.AccumulatorNumAccumulated(handle=acc)
    return [tf.identity(n, name="n")], {}


def _accumulator_cases():
    for dtype in [np.float32, np.float64, np.float16]:
        for reduction in ["MEAN", "SUM"]:
            for resource in [False, True]:
                ops = [("Resource" if resource else "") + o for o in ACC_DENSE]
                yield _case(f"{ops[0]}/{np.dtype(dtype).name}/{reduction}", ops,
                            _accumulator(dtype, reduction, resource),
                            rtol=1e-3 if dtype == np.float16 else None)
            for known in [True, False]:
                yield _case(f"SparseConditionalAccumulator/{np.dtype(dtype).name}/{reduction}"
                            f"/{'known' if known else 'unknown'}-shape",
                            ["SparseConditionalAccumulator", "SparseAccumulatorApplyGradient",
                             "SparseAccumulatorTakeGradient"],
                            _sparse_accumulator(dtype, reduction, known),
                            rtol=1e-3 if dtype == np.float16 else None)
    for what, err in ACC_ERRORS.items():
        yield _case(f"ConditionalAccumulator/{what}", ["ConditionalAccumulator"],
                    _accumulator_error(what), expect_error=err)
    yield _case("SparseConditionalAccumulator/index-out-of-shape",
                ["SparseAccumulatorApplyGradient"], _sparse_accumulator_error,
                expect_error=r"Shape mismatch: index of slice 1 exceeded limits of shape; "
                             r"index is 7 exceeded 4")


def _rewritten(ops, producer=None):
    """An `edit` for ops whose successor has other inputs or attrs: each node
    of op A in {A: (B, dropped input indices)} becomes a B without those
    inputs and without the attrs B does not have; versions.producer is set
    below B's deprecation."""
    def edit(graph_def):
        from tensorflow.python.framework import op_def_registry  # pylint: disable=import-outside-toplevel
        for node in graph_def.node:
            if node.op not in ops:
                continue
            new, dropped = ops[node.op]
            inputs = [x for i, x in enumerate(node.input) if i not in dropped]
            del node.input[:]
            node.input.extend(inputs)
            node.op = new
            allowed = {a.name for a in op_def_registry.get(new).attr}
            for key in [k for k in node.attr if k not in allowed]:
                del node.attr[key]
        if producer is not None:
            graph_def.versions.producer = producer
    return edit


def _ta_rename(v, pack=False):
    ops = {f"TensorArray{op}V3": (f"TensorArray{op}{v}", ())
           for op in ["", "Grad", "Write", "Read", "Gather", "Scatter", "Concat", "Split",
                      "Size", "Close"]}
    if pack:
        ops["TensorArrayGatherV3"] = ("TensorArrayPack", (1,))
        ops["TensorArrayScatterV3"] = ("TensorArrayUnpack", (1,))
    return ops


def _tensor_array_v2(dtype):
    """Every TensorArray op on one array of 3 elements and its gradient; the
    creation op's flow (which the TF1 forms do not have) is not used."""
    def body(tf):
        dt = tf.as_dtype(dtype)
        x = tf.compat.v1.placeholder(dt, [3, 2], name="x")
        h, _ = tf.raw_ops.TensorArrayV3(size=3, dtype=dt, element_shape=[2],
                                        clear_after_read=False)
        f = tf.constant(0.0)
        f = tf.raw_ops.TensorArrayScatterV3(handle=h, indices=[0, 1], value=x[:2], flow_in=f)
        f = tf.raw_ops.TensorArrayWriteV3(handle=h, index=2, value=tf.reverse(x[2], [0]),
                                          flow_in=f)
        read = tf.raw_ops.TensorArrayReadV3(handle=h, index=1, flow_in=f, dtype=dt)
        gather = tf.raw_ops.TensorArrayGatherV3(handle=h, indices=[2, 0], flow_in=f, dtype=dt)
        size = tf.raw_ops.TensorArraySizeV3(handle=h, flow_in=f)
        concat, lengths = tf.raw_ops.TensorArrayConcatV3(handle=h, flow_in=f, dtype=dt)
        h2, _ = tf.raw_ops.TensorArrayV3(size=2, dtype=dt)
        f2 = tf.raw_ops.TensorArraySplitV3(handle=h2, value=concat, lengths=tf.constant(
            [4, 2], tf.int64), flow_in=tf.constant(0.0))
        part = tf.raw_ops.TensorArrayReadV3(handle=h2, index=0, flow_in=f2, dtype=dt)
        outs = [read, gather, size, concat, lengths, part]
        if dtype != object and dtype != np.bool_:
            g, _ = tf.raw_ops.TensorArrayGradV3(handle=h, flow_in=f, source="g")
            gf = tf.raw_ops.TensorArrayWriteV3(handle=g, index=0, value=x[0], flow_in=f)
            gf = tf.raw_ops.TensorArrayWriteV3(handle=g, index=0, value=x[1], flow_in=gf)
            outs.append(tf.raw_ops.TensorArrayReadV3(handle=g, index=0, flow_in=gf, dtype=dt))
        with tf.control_dependencies(outs):
            close = tf.raw_ops.TensorArrayCloseV3(handle=h)
        with tf.control_dependencies([close]):
            outs = [tf.identity(o, name=f"out{i}") for i, o in enumerate(outs)]
        return outs, {x: data("ta", dtype, (6,)).reshape(3, 2)}
    return body


def _tensor_array_pack(tf):
    x = tf.compat.v1.placeholder(tf.float32, [4, 3], name="x")
    h, _ = tf.raw_ops.TensorArrayV3(size=4, dtype=tf.float32)
    f = tf.raw_ops.TensorArrayScatterV3(handle=h, indices=[0, 1, 2, 3], value=x,
                                        flow_in=tf.constant(0.0))
    packed = tf.raw_ops.TensorArrayGatherV3(handle=h, indices=[0, 1, 2, 3], flow_in=f,
                                            dtype=tf.float32)
    return [tf.identity(packed * 2.0, name="packed")], {x: data("pack", np.float32, (4, 3))}


def _tensor_array_errors(what):
    def body(tf):
        h, _ = tf.raw_ops.TensorArrayV3(size=2, dtype=tf.float32)
        f = tf.constant(0.0)
        if what == "index":
            f = tf.raw_ops.TensorArrayWriteV3(handle=h, index=5, value=[1.0], flow_in=f)
        else:  # dtype
            f = tf.raw_ops.TensorArrayWriteV3(handle=h, index=0, value=[1], flow_in=f)
        return [tf.identity(f, name="f")], {}
    return body


TA_ERRORS = {
    "index": r"Tried to write to index 5 but array is not resizeable and size is: 2",
    "dtype": r"TensorArray dtype is float but Op is trying to write dtype int32\.",
}


def _stack_v1(tf):
    x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
    h = tf.raw_ops.StackV2(max_size=tf.constant(-1), elem_type=tf.float32, stack_name="s")
    p1 = tf.raw_ops.StackPushV2(handle=h, elem=x)
    with tf.control_dependencies([p1]):
        p2 = tf.raw_ops.StackPushV2(handle=h, elem=x * 2.0)
    with tf.control_dependencies([p2]):
        a = tf.raw_ops.StackPopV2(handle=h, elem_type=tf.float32)
    with tf.control_dependencies([a]):
        b = tf.raw_ops.StackPopV2(handle=h, elem_type=tf.float32)
    with tf.control_dependencies([b]):
        close = tf.raw_ops.StackCloseV2(handle=h)
    with tf.control_dependencies([close]):
        out = tf.identity(a - b, name="diff")
    return [out, tf.identity(b, name="b"), tf.identity(p2, name="pushed")], {
        x: data("stack", np.float32, (2, 3))}


def _tensor_array_grad_shape(with_shape):
    """A gradient array of a forward one of unknown element shape: an
    unwritten gradient element reads as zeros of the forward value's shape
    (with the prepended dims)."""
    def body(tf):
        x = tf.compat.v1.placeholder(tf.float32, [2, 2], name="x")
        h, f = tf.raw_ops.TensorArrayV3(size=2, dtype=tf.float32)
        f = tf.raw_ops.TensorArrayScatterV3(handle=h, indices=[0, 1], value=x, flow_in=f)
        if with_shape:
            g, gf = tf.raw_ops.TensorArrayGradWithShape(
                handle=h, flow_in=f, shape_to_prepend=tf.constant([3]), source="g")
            value = tf.stack([x[0], x[1], x[0] * 2.0])
        else:
            g, gf = tf.raw_ops.TensorArrayGradV3(handle=h, flow_in=f, source="g")
            value = x[0] * 3.0
        gf = tf.raw_ops.TensorArrayWriteV3(handle=g, index=0, value=value, flow_in=gf)
        r0 = tf.raw_ops.TensorArrayReadV3(handle=g, index=0, flow_in=gf, dtype=tf.float32)
        r1 = tf.raw_ops.TensorArrayReadV3(handle=g, index=1, flow_in=gf, dtype=tf.float32)
        return [tf.identity(r0, name="r0"), tf.identity(r1, name="r1")], {
            x: data("grad-shape", np.float32, (2, 2))}
    return body


def _tensor_array_cases():
    yield _case("TensorArrayGradWithShape/float32", ["TensorArrayGradWithShape"],
                _tensor_array_grad_shape(True))
    yield _case("TensorArrayGradV3/unwritten-unknown-shape", ["TensorArrayGradV3"],
                _tensor_array_grad_shape(False))
    for v, producer in [("V2", 25), ("", 15)]:
        ops = [f"TensorArray{op}{v}" for op in ["", "Write", "Read", "Gather", "Scatter",
                                                "Concat", "Split", "Size", "Close"]]
        for dtype in [np.float32, np.float64, np.int32, np.int64, np.float16, np.bool_,
                      object]:
            name = np.dtype(dtype).name if dtype is not object else "string"
            grad = [] if dtype in (object, np.bool_) else [f"TensorArrayGrad{v}"]
            yield _case(f"TensorArray{v}/{name}", ops + grad, _tensor_array_v2(dtype),
                        edit=_rewritten(_ta_rename(v), producer))
        for what, err in TA_ERRORS.items():
            yield _case(f"TensorArray{v}/{what}", [f"TensorArrayWrite{v}"],
                        _tensor_array_errors(what), expect_error=err,
                        edit=_rewritten(_ta_rename(v), producer))
    yield _case("TensorArrayPack/float32", ["TensorArrayPack", "TensorArrayUnpack"],
                _tensor_array_pack, edit=_rewritten(_ta_rename("", pack=True), 15))
    yield _case("TensorArrayV2/producer-26", ["TensorArrayV2"], _tensor_array_v2(np.float32),
                edit=_rewritten(_ta_rename("V2"), 26),
                expect_error=r"Op TensorArrayV2 is not available in GraphDef version 26")
    yield _case("Stack/float32", ["Stack", "StackPush", "StackPop", "StackClose"], _stack_v1,
                edit=_rewritten({"StackV2": ("Stack", (0,)), "StackPushV2": ("StackPush", ()),
                                 "StackPopV2": ("StackPop", ()),
                                 "StackCloseV2": ("StackClose", ())}))


def _check_numerics(dtype, values):
    def body(tf):
        x = tf.compat.v1.placeholder(dtype, [len(values)], name="x")
        y = tf.raw_ops.CheckNumericsV2(tensor=x, message="checked")
        return [tf.identity(y, name="y")], {x: np.array(values, dtype)}
    return body


CHECK_NUMERICS = {
    "finite": ([1.0, -2.5, 0.0], None),
    "neg-inf": ([1.0, -np.inf], r"checked : Tensor had -Inf values"),
    "pos-inf-nan": ([np.nan, np.inf, 2.0], r"checked : Tensor had \+Inf and NaN values"),
    "all": ([np.nan, np.inf, -np.inf], r"checked : Tensor had -Inf, \+Inf, and NaN values"),
}


def _count_up_to(dtype, resource, limit):
    def body(tf):
        dt = tf.as_dtype(dtype)
        if resource:
            v = tf.raw_ops.VarHandleOp(dtype=dt, shape=[], shared_name="v")
            init = tf.raw_ops.AssignVariableOp(resource=v, value=tf.constant(3, dt))
            count = lambda: tf.raw_ops.ResourceCountUpTo(resource=v, limit=limit, T=dt)  # noqa
        else:
            v = tf.raw_ops.VariableV2(shape=[], dtype=dt)
            init = tf.raw_ops.Assign(ref=v, value=tf.constant(3, dt))
            count = lambda: tf.raw_ops.CountUpTo(ref=v, limit=limit)  # noqa: E731
        outs = _chain(tf, [lambda: init, count, count])
        return [tf.identity(outs[1], name="a"), tf.identity(outs[2], name="b")], {}
    return body


def _variable_shape(out_type):
    def body(tf):
        x = tf.compat.v1.placeholder(tf.float32, [2, 0, 3], name="x")
        v = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2, 0, 3], shared_name="v")
        init = tf.raw_ops.AssignVariableOp(resource=v, value=x)
        with tf.control_dependencies([init]):
            s = tf.raw_ops.VariableShape(input=v, out_type=out_type)
        return [tf.identity(s, name="s")], {x: np.zeros((2, 0, 3), np.float32)}
    return body


def _ref_select(tf):
    i = tf.compat.v1.placeholder(tf.int32, [], name="i")
    refs = []
    for k in range(3):
        v = tf.raw_ops.VariableV2(shape=[2], dtype=tf.float32, shared_name=f"v{k}")
        refs.append(tf.raw_ops.Assign(ref=v, value=tf.constant([k, -k], tf.float32)))
    out = tf.raw_ops.RefSelect(index=i, inputs=refs)
    return [tf.identity(out, name="out")], {i: np.int32(2)}


def _temporary_variable(tf):
    x = tf.compat.v1.placeholder(tf.float32, [2, 2], name="x")
    tmp = tf.raw_ops.TemporaryVariable(shape=[2, 2], dtype=tf.float32, var_name="acc")
    a = tf.raw_ops.Assign(ref=tmp, value=x)
    b = tf.raw_ops.AssignAdd(ref=a, value=x * 3.0)
    out = tf.raw_ops.DestroyTemporaryVariable(ref=b, var_name="acc")
    return [tf.identity(out, name="out")], {x: data("tmp", np.float32, (2, 2))}


def _mutex(tf):
    x = tf.compat.v1.placeholder(tf.float32, [3], name="x")
    m = tf.raw_ops.MutexV2(shared_name="m")
    lock = tf.raw_ops.MutexLock(mutex=m)
    with tf.control_dependencies([lock]):
        y = tf.identity(x * 2.0)
    with tf.control_dependencies([y]):
        done = tf.raw_ops.ConsumeMutexLock(mutex_lock=lock)
    with tf.control_dependencies([done]):
        out = tf.identity(y, name="out")
    return [out], {x: data("mutex", np.float32, (3,))}


def _misc_cases():
    for dtype in [np.float32, np.float64, np.float16]:
        for what, (values, err) in CHECK_NUMERICS.items():
            yield _case(f"CheckNumericsV2/{np.dtype(dtype).name}/{what}", ["CheckNumericsV2"],
                        _check_numerics(dtype, values), expect_error=err)
    for dtype in [np.int32, np.int64]:
        for resource in [False, True]:
            op = "ResourceCountUpTo" if resource else "CountUpTo"
            yield _case(f"{op}/{np.dtype(dtype).name}", [op], _count_up_to(dtype, resource, 9))
            yield _case(f"{op}/{np.dtype(dtype).name}/limit", [op],
                        _count_up_to(dtype, resource, 4), expect_error=r"Reached limit of 4")
    for out_type in ["int32", "int64"]:
        yield _case(f"VariableShape/{out_type}", ["VariableShape"], _variable_shape(out_type))
    yield _case("RefSelect/float32", ["RefSelect"], _ref_select)
    yield _case("TemporaryVariable/float32", ["TemporaryVariable", "DestroyTemporaryVariable"],
                _temporary_variable)
    yield _case("MutexLock/float32", ["MutexV2", "MutexLock", "ConsumeMutexLock"], _mutex)


def _attrs(tf, **kw):
    """AttrValue protos for an internal op built with create_op."""
    from tensorflow.core.framework import attr_value_pb2, tensor_shape_pb2  # noqa: E501 pylint: disable=import-outside-toplevel
    out = {}
    for key, v in kw.items():
        if isinstance(v, bool):
            out[key] = attr_value_pb2.AttrValue(b=v)
        elif isinstance(v, int):
            out[key] = attr_value_pb2.AttrValue(i=v)
        elif isinstance(v, tf.DType):
            out[key] = attr_value_pb2.AttrValue(type=v.as_datatype_enum)
        elif isinstance(v, str):
            out[key] = attr_value_pb2.AttrValue(s=v.encode())
        elif v and isinstance(v[0], tf.DType):
            out[key] = attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(
                type=[t.as_datatype_enum for t in v]))
        elif v and isinstance(v[0], str):
            out[key] = attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(
                s=[t.encode() for t in v]))
        else:  # a list of shapes
            out[key] = attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(
                shape=[tensor_shape_pb2.TensorShapeProto(
                    dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in shape])
                    for shape in v]))
    return out


def _internal(tf, op, inputs, types, name, **attrs):
    graph = tf.compat.v1.get_default_graph()
    # pylint: disable=protected-access
    return graph._create_op_internal(op, inputs, types, name=name,
                                     attrs=_attrs(tf, **attrs)).outputs


def _host_cast(src, dst):
    def body(tf):
        x = tf.compat.v1.placeholder(src, [2, 3], name="x")
        y = _internal(tf, "_HostCast", [x], [tf.as_dtype(dst)], "host_cast",
                      SrcT=tf.as_dtype(src), DstT=tf.as_dtype(dst))[0]
        return [tf.identity(y, name="y")], {x: data("host-cast", src, (2, 3), "small")}
    return body


def _array_list(tf):
    a = tf.compat.v1.placeholder(tf.float32, [2], name="a")
    b = tf.compat.v1.placeholder(tf.float32, [3], name="b")
    lst = _internal(tf, "_ArrayToList", [a, b], [tf.float32, tf.float32], "a2l", T=tf.float32,
                    N=2, out_types=[tf.float32, tf.float32])
    arr = _internal(tf, "_ListToArray", lst, [tf.float32, tf.float32], "l2a",
                    Tin=[tf.float32, tf.float32], T=tf.float32, N=2)
    return [tf.identity(arr[0], name="x"), tf.identity(arr[1] * 2.0, name="y")], {
        a: data("a", np.float32, (2,)), b: data("b", np.float32, (3,))}


def _var_handles(tf):
    h = _internal(tf, "_VarHandlesOp", [], [tf.resource, tf.resource], "handles",
                  containers=["", ""], shared_names=["a", "b"], N=2,
                  dtypes=[tf.float32, tf.int64], shapes=[[2], []])
    x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
    inits = [tf.raw_ops.AssignVariableOp(resource=h[0], value=x),
             tf.raw_ops.AssignVariableOp(resource=h[1], value=tf.constant(7, tf.int64))]
    with tf.control_dependencies(inits):
        r = _internal(tf, "_ReadVariablesOp", h, [tf.float32, tf.int64], "reads", N=2,
                      dtypes=[tf.float32, tf.int64])
    return [tf.identity(r[0], name="r0"), tf.identity(r[1], name="r1")], {
        x: data("vars", np.float32, (2,))}


def _device_index(tf):
    a = tf.raw_ops.DeviceIndex(device_names=["GPU", "CPU"])
    b = tf.raw_ops.DeviceIndex(device_names=["TPU", "GPU"])
    t = _internal(tf, "IsTensorFloat32Enabled", [], [tf.bool], "tf32")[0]
    return [tf.identity(a, name="a"), tf.identity(b, name="b"), tf.identity(t, name="t")], {}


def _fake_param(tf):
    p = tf.raw_ops.FakeParam(dtype=tf.float32, shape=[2, 3])
    return [tf.identity(tf.shape(p), name="shape")], {}


def _device_arg(tf):
    a = _internal(tf, "_DeviceArg", [], [tf.float32], "arg", T=tf.float32, index=0)[0]
    return [tf.identity(a, name="a")], {}


def _anonymous_table(tf):
    table = tf.raw_ops.AnonymousHashTable(key_dtype=tf.int64, value_dtype=tf.string)
    imp = tf.raw_ops.LookupTableImportV2(table_handle=table, keys=tf.constant([3, 9], tf.int64),
                                         values=tf.constant(["c", "i"]))
    q = tf.compat.v1.placeholder(tf.int64, [4], name="q")
    with tf.control_dependencies([imp]):
        found = tf.raw_ops.LookupTableFindV2(table_handle=table, keys=q,
                                             default_value=tf.constant("?"))
        size = tf.raw_ops.LookupTableSizeV2(table_handle=table)
    return [tf.identity(found, name="found"), tf.identity(size, name="size")], {
        q: np.array([9, 1, 3, 3], np.int64)}


def _internal_cases():
    for src, dst in [(np.float32, np.int32), (np.int32, np.float64), (np.float64, np.float16),
                     (np.int64, np.bool_)]:
        yield _case(f"_HostCast/{np.dtype(src).name}-{np.dtype(dst).name}", ["_HostCast"],
                    _host_cast(src, dst))
    yield _case("_ArrayToList/float32", ["_ArrayToList", "_ListToArray"], _array_list)
    yield _case("_VarHandlesOp/float32-int64", ["_VarHandlesOp", "_ReadVariablesOp"],
                _var_handles)
    yield _case("DeviceIndex/cpu", ["DeviceIndex", "IsTensorFloat32Enabled"], _device_index)
    yield _case("FakeParam/float32", ["FakeParam"], _fake_param)
    yield _case("_DeviceArg/no-call-frame", ["_DeviceArg"], _device_arg,
                expect_error=r"GetArg 0 is not within \[0, 0\)")
    yield _case("AnonymousHashTable/int64-string", ["AnonymousHashTable"], _anonymous_table)


DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def _send_recv(send, recv, dtype):
    def body(tf):
        x = tf.compat.v1.placeholder(dtype, [2, 2], name="x")
        common = dict(tensor_name="edge", send_device=DEVICE, send_device_incarnation=1,
                      recv_device=DEVICE, client_terminated=False)
        sent = tf.compat.v1.get_default_graph()._create_op_internal(  # pylint: disable=W0212
            send, [x], [], name="send", attrs=_attrs(tf, T=tf.as_dtype(dtype), **common))
        with tf.control_dependencies([sent]):
            got = _internal(tf, recv, [], [tf.as_dtype(dtype)], "recv",
                            tensor_type=tf.as_dtype(dtype), **common)[0]
        return [tf.identity(got, name="got")], {x: data("sendrecv", dtype, (4,)).reshape(2, 2)}
    return body


def _defun(tf, *types, **kw):
    from tensorflow.python.framework import function  # pylint: disable=import-outside-toplevel
    del tf
    return function.Defun(*types, **kw)


def _symbolic_gradient(tf):
    """SymbolicGradient of a function whose gradient the library defines
    (a GradientDef; dfg does not differentiate function bodies itself)."""
    @_defun(tf, tf.float32, tf.float32)
    def cube_grad(x, dy):
        return dy * 3.0 * x * x

    @_defun(tf, tf.float32, grad_func=cube_grad)
    def cube(x):
        return x * x * x
    x = tf.compat.v1.placeholder(tf.float32, [3], name="x")
    dy = tf.compat.v1.placeholder(tf.float32, [3], name="dy")
    g = tf.raw_ops.SymbolicGradient(input=[x, dy], Tout=[tf.float32], f=cube)
    return [tf.identity(g[0], name="g")], {x: data("sg-x", np.float32, (3,)),
                                           dy: data("sg-dy", np.float32, (3,))}


def _for(start, limit, delta):
    def body(tf):
        @_defun(tf, tf.int32, tf.float32, tf.int64)
        def step(i, x, n):
            return x * 0.5 + tf.cast(i, tf.float32), n + 1
        x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
        out = tf.raw_ops.For(start=start, limit=limit, delta=delta,
                             input=[x, tf.constant(0, tf.int64)], body=step)
        return [tf.identity(out[0], name="x_out"), tf.identity(out[1], name="n")], {
            x: data("for", np.float32, (2,))}
    return body


def _remote_call(tf):
    @_defun(tf, tf.float32, tf.int32)
    def f(x, k):
        return x * tf.cast(k, tf.float32), k + 1
    x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
    out = tf.raw_ops.RemoteCall(target=DEVICE, args=[x, tf.constant(3)],
                                Tout=[tf.float32, tf.int32], f=f)
    return [tf.identity(out[0], name="y"), tf.identity(out[1], name="k")], {
        x: data("remote", np.float32, (2,))}


def _internal_if_while(tf):
    from tensorflow.core.framework import attr_value_pb2  # pylint: disable=import-outside-toplevel

    @_defun(tf, tf.float32)
    def double(x):
        return x * 2.0

    @_defun(tf, tf.float32)
    def negate(x):
        return -x

    @_defun(tf, tf.int32, tf.float32)
    def cond(i, x):
        del x
        return i < 3

    @_defun(tf, tf.int32, tf.float32)
    def body(i, x):
        return i + 1, x + 1.0

    graph = tf.compat.v1.get_default_graph()
    for f in (double, negate, cond, body):
        f.add_to_graph(graph)
    x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
    p = tf.compat.v1.placeholder(tf.bool, [], name="p")
    func = lambda f: attr_value_pb2.AttrValue(  # noqa: E731
        func=attr_value_pb2.NameAttrList(name=f.name))
    attrs = _attrs(tf, Tcond=tf.bool, Tin=[tf.float32], Tout=[tf.float32])
    attrs.update(then_branch=func(double), else_branch=func(negate))
    y = graph._create_op_internal("_If", [p, x], [tf.float32], name="if",  # pylint: disable=W0212
                                  attrs=attrs).outputs[0]
    attrs = _attrs(tf, T=[tf.int32, tf.float32])
    attrs.update(cond=func(cond), body=func(body))
    w = graph._create_op_internal("_While", [tf.constant(0), x], [tf.int32, tf.float32],  # noqa
                                  name="while", attrs=attrs).outputs
    return [tf.identity(y, name="y"), tf.identity(w[0], name="i"),
            tf.identity(w[1], name="w")], {x: data("ifwhile", np.float32, (2,)),
                                           p: np.bool_(False)}


def _function_cases():
    for send, recv in [("Send", "Recv"), ("_HostSend", "_HostRecv")]:
        for dtype in [np.float32, np.int64, object]:
            name = np.dtype(dtype).name if dtype is not object else "string"
            yield _case(f"{send}/{name}", [send, recv], _send_recv(send, recv, dtype))
    yield _case("SymbolicGradient/float32", ["SymbolicGradient"], _symbolic_gradient)
    for start, limit, delta in [(0, 4, 1), (5, -1, -2), (2, 2, 0), (3, 3, 1)]:
        yield _case(f"For/{start}-{limit}-{delta}", ["For"], _for(start, limit, delta))
    yield _case("For/invalid", ["For"], _for(0, 4, -1),
                expect_error=r"Invalid start/limit/delta: 0 4 -1")
    yield _case("RemoteCall/float32", ["RemoteCall"], _remote_call)
    yield _case("_If/float32", ["_If", "_While"], _internal_if_while)


def cases():
    yield from _staging_cases()
    yield from _accumulator_cases()
    yield from _tensor_array_cases()
    yield from _misc_cases()
    yield from _internal_cases()
    yield from _function_cases()
