"""Runtime-side state and internal ops of TF1 graphs and TensorFlow's own
rewrites: CheckNumericsV2, CountUpTo, VariableShape, RefSelect, temporary
variables, mutexes, _HostCast, _VarHandlesOp, Send/Recv, For, RemoteCall,
_If/_While, SymbolicGradient... Internal ops (a leading '_') are built with
the graph's create_op, which TensorFlow's Python API allows for any
registered op."""
import numpy as np

from op_case import data
from op_cases.state import _case, _chain


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
    # pylint: disable-next=import-outside-toplevel
    from tensorflow.core.framework import attr_value_pb2, tensor_shape_pb2
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
    yield from _misc_cases()
    yield from _internal_cases()
    yield from _function_cases()
