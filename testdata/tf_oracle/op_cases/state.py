"""TF1 stateful containers: staging areas (Stage, MapStage, OrderedMapStage
families), conditional accumulators, TensorArray v1/v2 and Stack v1. Every
case runs in one step; control dependencies order each put before its get
(a get of what is not there blocks, in TensorFlow as in dfg). The runtime
ops of the same family are in state_runtime.py."""
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
        # pylint: disable-next=import-outside-toplevel
        from tensorflow.python.framework import op_def_registry
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


def cases():
    yield from _staging_cases()
    yield from _accumulator_cases()
    yield from _tensor_array_cases()
