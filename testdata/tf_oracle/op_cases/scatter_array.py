"""Scatter ops (ScatterNd, TensorScatter*, the ref and resource variable
scatters, ResourceGatherNd) and the array ops of the same family.

Variable cases run in one step: the variable is assigned its initial value
by an Assign (whose ref output feeds the ref scatter) or an AssignVariableOp
(a control input of the resource scatter, whose ReadVariableOp after it is
the fetch)."""
import numpy as np

from op_case import OpCase, data

_I32 = np.int32


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _np_dtype(dtype):
    tf = _tf()
    return tf.as_dtype(dtype).as_numpy_dtype


def _tag(dtype, shape):
    return f"{_tf().as_dtype(dtype).name}{list(shape)}".replace(" ", "")


def _strings(name, shape):
    # op_case.data draws strings for 1-D shapes only.
    n = int(np.prod(shape, dtype=np.int64))
    return data(name, object, (n,)).reshape(shape)


def _values(name, dtype, shape, domain="any"):
    tf = _tf()
    dt = tf.as_dtype(dtype)
    if dt in (tf.bfloat16, tf.half):
        return data(name, np.float32, shape, domain).astype(dt.as_numpy_dtype)
    if dt == tf.string:
        return _strings(name, shape)
    return data(name, dt.as_numpy_dtype, shape, domain)


def _feeds(values):
    """Placeholders (unknown shape, so that runtime errors reach the kernel)
    for {name: ndarray}, constants for strings and bfloat16: (list of
    tensors, feed dict)."""
    tf = _tf()
    phs, feeds = [], {}
    for key, v in values.items():
        v = np.asarray(v)
        dtype = tf.string if v.dtype == object else tf.as_dtype(v.dtype)
        if dtype in (tf.string, tf.bfloat16):  # `dfg run --feed` reads no such .npy
            phs.append(tf.constant(v, dtype=dtype, name=key))
            continue
        ph = tf.compat.v1.placeholder(dtype, None, name=key)
        phs.append(ph)
        feeds[ph] = v
    return phs, feeds


def _case(name, ops, fn, values, **kw):
    def build():
        phs, feeds = _feeds(values)
        out = fn(*phs)
        out = out if isinstance(out, list) else [out]
        # bfloat16 has no .npy form: fetch it as float32 (exact).
        tf = _tf()
        return [tf.cast(t, tf.float32) if t.dtype == tf.bfloat16 else t for t in out], feeds
    return OpCase(name, ops, build, **kw)


# ---------------------------------------------------------------------------
# ScatterNd and the TensorScatter ops.

_ND_SHAPES = [  # (output shape, indices, updates shape)
    ((6,), [[1], [4], [1], [0]], (4,)),
    ((4, 3), [[2], [0], [2]], (3, 3)),
    ((3, 4, 2), [[0, 1], [2, 3], [0, 1]], (3, 2)),
    ((2, 3), [[[0, 1], [1, 2]], [[1, 0], [0, 1]]], (2, 2)),
    ((3, 2), np.zeros([0, 1], _I32), (0, 2)),
]


def _scatter_nd_cases():
    tf = _tf()
    for dtype in (tf.float32, tf.float64, tf.int32, tf.int64, tf.half, tf.bfloat16,
                  tf.uint8, tf.int8, tf.complex64, tf.bool, tf.string):
        for shape, idx, ushape in _ND_SHAPES:
            if dtype != tf.float32 and len(shape) == 3:
                continue
            name = f"ScatterNd/{_tag(dtype, shape)}/{len(idx)}x"
            yield _case(name, ["ScatterNd"],
                        lambda i, u, s: tf.raw_ops.ScatterNd(indices=i, updates=u, shape=s),
                        {"indices": np.array(idx, _I32),
                         "updates": _values(name, dtype, ushape),
                         "shape": np.array(shape, _I32)})
    name = "ScatterNd/float32[5]/int64"
    yield _case(name, ["ScatterNd"],
                lambda i, u, s: tf.raw_ops.ScatterNd(indices=i, updates=u, shape=s),
                {"indices": np.array([[4], [0]], np.int64),
                 "updates": _values(name, tf.float32, (2,)), "shape": np.array([5], np.int64)})
    errors = [
        ("bad_index", [[1], [5]], (2,), [4], r"indices\[1\] = \[5\] does not index into shape \[4\]"),
        ("negative", [[1, 0], [-1, 0]], (2,), [4, 2],
         r"indices\[1\] = \[-1, 0\] does not index into shape \[4,2\]"),
        ("outer_dims", [[1], [2]], (3,), [4],
         r"Dimensions \[0,1\) of indices\[shape=\[2,1\]\] must match dimensions \[0,1\) "
         r"of updates\[shape=\[3\]\]"),
        ("inner_dims", [1, 2], (2,), [4],
         r"Dimensions \[2,1\) of input\[shape=\[4\]\] must match dimensions \[0,1\) of "
         r"updates\[shape=\[2\]\]"),
        ("shape_matrix", [[1], [2]], (2,), [[4]], "Shape must be a vector"),
        ("empty_output", [[1], [2]], (2,), [0],
         r"Indices and updates specified for empty output.  indices shape: \[2,1\]"),
        ("negative_dim", [[1], [2]], (2,), [4, -1], "Dimension -1 must be >= 0"),
    ]
    for variant, idx, ushape, shape, err in errors:
        name = f"ScatterNd/float32{list(ushape)}/{variant}".replace(" ", "")
        yield _case(name, ["ScatterNd"],
                    lambda i, u, s: tf.raw_ops.ScatterNd(indices=i, updates=u, shape=s),
                    {"indices": np.array(idx, _I32), "updates": _values(name, tf.float32, ushape),
                     "shape": np.array(shape, _I32)}, expect_error=err)
    for policy in ("IGNORE", "ERROR"):
        name = f"ScatterNd/float32[4]/{policy}"
        yield _case(name, ["ScatterNd"],
                    lambda i, u, s, p=policy: tf.raw_ops.ScatterNd(
                        indices=i, updates=u, shape=s, bad_indices_policy=p),
                    {"indices": np.array([[1], [5], [2]], _I32),
                     "updates": _values(name, tf.float32, (3,)), "shape": np.array([4], _I32)},
                    expect_error=None if policy == "IGNORE" else "does not index into shape")


def _tensor_scatter_cases():
    tf = _tf()
    kinds = {
        "TensorScatterUpdate": (tf.float32, tf.float64, tf.int32, tf.int64, tf.half,
                                tf.bfloat16, tf.uint8, tf.complex64, tf.bool, tf.string),
        "TensorScatterAdd": (tf.float32, tf.float64, tf.int32, tf.int64, tf.half, tf.bfloat16,
                             tf.int8, tf.uint16, tf.complex128),
        "TensorScatterSub": (tf.float32, tf.float64, tf.int32, tf.int64, tf.half, tf.uint8),
        "TensorScatterMax": (tf.float32, tf.float64, tf.int32, tf.int64, tf.half, tf.bfloat16,
                             tf.uint8),
        "TensorScatterMin": (tf.float32, tf.float64, tf.int32, tf.int64, tf.half, tf.int16),
        "ScatterNdNonAliasingAdd": (tf.float32, tf.float64, tf.int32, tf.int64, tf.half,
                                    tf.bool, tf.complex64),
    }
    for op, dtypes in kinds.items():
        first = "input" if op == "ScatterNdNonAliasingAdd" else "tensor"
        fn = (lambda op, first: lambda t, i, u: getattr(tf.raw_ops, op)(
            **{first: t, "indices": i, "updates": u}))(op, first)
        for dtype in dtypes:
            for shape, idx, ushape in _ND_SHAPES:
                if dtype not in (tf.float32, tf.int32) and len(shape) == 3:
                    continue
                name = f"{op}/{_tag(dtype, shape)}/{len(idx)}x"
                yield _case(name, [op], fn,
                            {"tensor": _values(name + "/t", dtype, shape),
                             "indices": np.array(idx, _I32),
                             "updates": _values(name + "/u", dtype, ushape)})
        name = f"{op}/float32[4,3]/int64"
        yield _case(name, [op], fn,
                    {"tensor": _values(name + "/t", tf.float32, (4, 3)),
                     "indices": np.array([[3], [1]], np.int64),
                     "updates": _values(name + "/u", tf.float32, (2, 3))})
        name = f"{op}/float32[3,2]/bad_index"
        yield _case(name, [op], fn,
                    {"tensor": np.zeros([3, 2], np.float32), "indices": np.array([[1], [5]], _I32),
                     "updates": np.ones([2, 2], np.float32)},
                    expect_error=r"indices\[1\] = \[5\] does not index into shape \[3,2\]")
    errors = [
        ("scalar_input", np.float32(1), [[1], [5]], np.ones([2, 2], np.float32),
         r"Inner dimensions of output shape must match inner dimensions of updates shape. "
         r"Output: \[\] updates: \[2,2\]"),
        ("inner", np.zeros([3, 2], np.float32), [[1, 1, 1]], np.ones([1], np.float32),
         r"Inner dimensions of output shape must match"),
        ("inner_size", np.zeros([3, 2], np.float32), [[1]], np.ones([1, 3], np.float32),
         r"The inner 1 dimensions of output.shape=\[3,2\] must match the inner 1 dimensions "
         r"of updates.shape=\[1,3\]"),
        ("outer", np.zeros([3, 2], np.float32), [[1]], np.zeros([2, 2], np.float32),
         r"Outer dimensions of indices and update must match. Indices shape: \[1,1\], "
         r"updates shape:\[2,2\]"),
        ("rank0_indices", np.zeros([3, 2], np.float32), 1, np.zeros([2], np.float32),
         r"Indices shape must have rank at least one. Found:\[\]"),
        ("one_d", np.zeros([3, 2], np.float32), [1], np.zeros([2], np.float32),
         r"Dimensions \[0,1\) of indices\[shape=\[1\]\] = 1 must match dimensions \[0,1\) of "
         r"updates\[shape=\[2\]\] = 2"),
        ("empty_output", np.zeros([0, 2], np.float32), [[1]], np.zeros([1, 2], np.float32),
         "Indices and updates specified for empty output shape"),
    ]
    for variant, t, idx, u, err in errors:
        yield _case(f"TensorScatterUpdate/float32/{variant}", ["TensorScatterUpdate"],
                    lambda t_, i, u_: tf.raw_ops.TensorScatterUpdate(tensor=t_, indices=i,
                                                                     updates=u_),
                    {"tensor": t, "indices": np.array(idx, _I32), "updates": u}, expect_error=err)


# ---------------------------------------------------------------------------
# Variables.

def _ref_var(init):
    """A VariableV2 assigned `init` (a tensor): the Assign's ref output."""
    tf = _tf()
    v = tf.raw_ops.VariableV2(shape=tf.TensorShape(None), dtype=init.dtype, name="var")
    return tf.raw_ops.Assign(ref=v, value=init, validate_shape=False)


def _resource_then_read(init, update):
    """A resource variable assigned `init`, then update(handle), then read."""
    tf = _tf()
    h = tf.raw_ops.VarHandleOp(dtype=init.dtype, shape=None, shared_name="var")
    assign = tf.raw_ops.AssignVariableOp(resource=h, value=init)
    with tf.control_dependencies([assign]):
        op = update(h)
    with tf.control_dependencies([op]):
        return tf.raw_ops.ReadVariableOp(resource=h, dtype=init.dtype)


_ND_VAR = {
    "Update": (np.float32, np.float64, np.int32, np.int64, np.float16, np.bool_, object),
    "Add": (np.float32, np.float64, np.int32, np.int64, np.complex64),
    "Sub": (np.float32, np.int32, np.int64),
    "Max": (np.float32, np.float64, np.int32, np.int64),
    "Min": (np.float32, np.int32, np.uint8),
}

_ROW_VAR = {
    "Update": (np.float32, np.float64, np.int32, np.int64, np.float16, np.bool_, object),
    "Add": (np.float32, np.float64, np.int32, np.int64, np.complex64),
    "Sub": (np.float32, np.float64, np.int32, np.int64),
    "Mul": (np.float32, np.float64, np.int32, np.int64),
    "Div": (np.float32, np.float64),
    "Min": (np.float32, np.float64, np.int32, np.int64),
    "Max": (np.float32, np.float64, np.int32, np.int64, np.float16),
}


def _var_values(name, dtype, shape):
    if dtype is object:
        return _strings(name, shape)
    return _values(name, dtype, shape, "nonzero" if "Div" in name else "any")


def _nd_var_cases():
    tf = _tf()
    for kind, dtypes in _ND_VAR.items():
        for resource in (False, True):
            op = ("ResourceScatterNd" if resource else "ScatterNd") + kind
            fn_op = getattr(tf.raw_ops, op)
            for dtype in dtypes:
                for shape, idx, ushape in _ND_SHAPES[:3]:
                    name = f"{op}/{_tag(tf.string if dtype is object else dtype, shape)}"
                    vals = {"init": _var_values(name + "/v", dtype, shape),
                            "indices": np.array(idx, _I32),
                            "updates": _var_values(name + "/u", dtype, ushape)}
                    if resource:
                        fn = (lambda f: lambda v, i, u: _resource_then_read(
                            v, lambda h: f(ref=h, indices=i, updates=u)))(fn_op)
                    else:
                        fn = (lambda f: lambda v, i, u: f(ref=_ref_var(v), indices=i,
                                                          updates=u))(fn_op)
                    yield _case(name, [op], fn, vals)
            name = f"{op}/float32[3,2]/bad_index"
            vals = {"init": np.zeros([3, 2], np.float32), "indices": np.array([[1], [3]], _I32),
                    "updates": np.ones([2, 2], np.float32)}
            if resource:
                fn = (lambda f: lambda v, i, u: _resource_then_read(
                    v, lambda h: f(ref=h, indices=i, updates=u)))(fn_op)
            else:
                fn = (lambda f: lambda v, i, u: f(ref=_ref_var(v), indices=i, updates=u))(fn_op)
            yield _case(name, [op], fn, vals,
                        expect_error=r"indices\[1\] = \[3\] does not index into shape \[3,2\]")


_ROW_SHAPES = [  # (params shape, indices, updates shape)
    ((5,), [3, 1, 3], (3,)),
    ((4, 3), [[2], [0]], (2, 1, 3)),
    ((4, 2), [1, 1, 2], ()),
    ((3, 2), np.zeros([0], _I32), (0, 2)),
]


def _row_var_cases():
    tf = _tf()
    for kind, dtypes in _ROW_VAR.items():
        for resource in (False, True):
            op = ("ResourceScatter" if resource else "Scatter") + kind
            fn_op = getattr(tf.raw_ops, op)
            if resource:
                fn = (lambda f: lambda v, i, u: _resource_then_read(
                    v, lambda h: f(resource=h, indices=i, updates=u)))(fn_op)
            else:
                fn = (lambda f: lambda v, i, u: f(ref=_ref_var(v), indices=i, updates=u))(fn_op)
            for dtype in dtypes:
                for shape, idx, ushape in _ROW_SHAPES:
                    tag = _tag(tf.string if dtype is object else dtype, shape)
                    name = f"{op}/{tag}/{len(ushape)}d"
                    vals = {"init": _var_values(name + "/v", dtype, shape),
                            "indices": np.array(idx, _I32),
                            "updates": _var_values(name + "/u", dtype, ushape)}
                    yield _case(name, [op], fn, vals)
            name = f"{op}/float32[3,2]/int64"
            yield _case(name, [op], fn,
                        {"init": _var_values(name + "/v", np.float32, (3, 2)),
                         "indices": np.array([2, 0], np.int64),
                         "updates": _var_values(name + "/u", np.float32, (2, 2))})
            name = f"{op}/float32[3,2]/bad_index"
            yield _case(name, [op], fn,
                        {"init": np.ones([3, 2], np.float32),
                         "indices": np.array([[1], [3]], _I32),
                         "updates": np.ones([2, 1, 2], np.float32)},
                        expect_error=r"indices\[1,0\] = 3 is not in \[0, 3\)")
            name = f"{op}/float32[3,2]/bad_shape"
            yield _case(name, [op], fn,
                        {"init": np.ones([3, 2], np.float32),
                         "indices": np.array([1, 2], _I32), "updates": np.ones([2], np.float32)},
                        expect_error=r"Must have updates.shape = indices.shape \+ "
                                     r"params.shape\[1:\] or updates.shape = \[\], got "
                                     r"updates.shape \[2\], indices.shape \[2\], "
                                     r"params.shape \[3,2\]")


def _gather_nd_cases():
    tf = _tf()

    def gather(v, i, dtype):
        h = tf.raw_ops.VarHandleOp(dtype=dtype, shape=None, shared_name="var")
        assign = tf.raw_ops.AssignVariableOp(resource=h, value=v)
        with tf.control_dependencies([assign]):
            return tf.raw_ops.ResourceGatherNd(resource=h, indices=i, dtype=dtype)
    for dtype in (tf.float32, tf.float64, tf.int32, tf.int64, tf.bool, tf.string, tf.half):
        for shape, idx in (((4, 3), [[2], [0], [2]]), ((2, 3, 2), [[1, 2], [0, 0]]),
                           ((3, 2), [[[0, 1]], [[2, 0]]]), ((3, 2), np.zeros([0, 1], _I32))):
            name = f"ResourceGatherNd/{_tag(dtype, shape)}/{np.array(idx).shape}".replace(" ", "")
            yield _case(name, ["ResourceGatherNd"],
                        lambda v, i, d=dtype: gather(v, i, d),
                        {"init": _values(name, dtype, shape), "indices": np.array(idx, _I32)})
    yield _case("ResourceGatherNd/float32[3,2]/bad_index", ["ResourceGatherNd"],
                lambda v, i: gather(v, i, tf.float32),
                {"init": np.ones([3, 2], np.float32), "indices": np.array([[1], [5]], _I32)},
                expect_error=r"indices\[1\] = \[5\] does not index into param shape \[3,2\]")


# Helpers for the family's other case module (scatter_array_ext.py).
I32 = _I32
case = _case
strings = _strings
tf_module = _tf
values = _values


def cases():
    yield from _scatter_nd_cases()
    yield from _tensor_scatter_cases()
    yield from _nd_var_cases()
    yield from _row_var_cases()
    yield from _gather_nd_cases()
