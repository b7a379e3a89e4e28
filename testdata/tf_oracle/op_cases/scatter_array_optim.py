"""TF1 optimizer ops (Apply* on ref variables, ResourceApply* on resource
variables): one step, then every slot's value.

Each slot variable is assigned its initial value in the same step: the ref
form takes the Assign's ref output as its slot input, the resource form runs
after the AssignVariableOps; the fetches read every slot after the update
(an Identity of the ref, a ReadVariableOp) through a control dependency."""
import numpy as np

from op_case import OpCase, data

# Scalar hyper-parameters by input name.
_SCALARS = {"lr": 0.1, "rho": 0.9, "epsilon": 1e-3, "momentum": 0.9, "beta1": 0.9,
            "beta2": 0.999, "beta1_power": 0.9 ** 3, "beta2_power": 0.999 ** 3, "l1": 0.05,
            "l2": 0.1, "lr_power": -0.5, "l2_shrinkage": 0.01, "alpha": 0.5,
            "sign_decay": 0.5, "beta": 0.9, "logbase": 0.7}

# (op suffix, inputs in order: slots "s:<name>[:pos]", scalars by name, "grad"/"delta",
#  "step"), resource-only
_OPTIMIZERS = [
    ("Adadelta", ["s:var", "s:accum:pos", "s:accum_update:pos", "lr", "rho", "epsilon",
                  "grad"], False),
    ("AdagradV2", ["s:var", "s:accum:pos", "lr", "epsilon", "grad"], False),
    ("AdaMax", ["s:var", "s:m", "s:v:pos", "beta1_power", "lr", "beta1", "beta2", "epsilon",
                "grad"], False),
    ("AddSign", ["s:var", "s:m", "lr", "alpha", "sign_decay", "beta", "grad"], False),
    ("PowerSign", ["s:var", "s:m", "lr", "logbase", "sign_decay", "beta", "grad"], False),
    ("CenteredRMSProp", ["s:var", "s:mg", "s:ms:pos", "s:mom", "lr", "rho", "momentum",
                         "epsilon", "grad"], False),
    ("Ftrl", ["s:var", "s:accum:pos", "s:linear", "grad", "lr", "l1", "l2", "lr_power"], False),
    ("FtrlV2", ["s:var", "s:accum:pos", "s:linear", "grad", "lr", "l1", "l2", "l2_shrinkage",
                "lr_power"], False),
    ("ProximalAdagrad", ["s:var", "s:accum:pos", "lr", "l1", "l2", "grad"], False),
    ("ProximalGradientDescent", ["s:var", "alpha", "l1", "l2", "delta"], False),
    ("AdagradDA", ["s:var", "s:gradient_accumulator", "s:gradient_squared_accumulator:pos",
                   "grad", "lr", "l1", "l2", "step"], False),
    ("KerasMomentum", ["s:var", "s:accum", "lr", "grad", "momentum"], True),
    ("AdamWithAmsgrad", ["s:var", "s:m", "s:v:pos", "s:vhat:pos", "beta1_power",
                         "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"], True),
]

# TensorFlow's CPU kernels for these lack half; for CenteredRMSProp and Ftrl
# its half math rounds every intermediate to half, which the oracle's half
# tolerance (1e-3) cannot absorb: dfg computes in float.
_DTYPES = {"ProximalAdagrad": ("float32", "float64"),
           "ProximalGradientDescent": ("float32", "float64"),
           "AdagradDA": ("float32", "float64"),
           "CenteredRMSProp": ("float32", "float64"),
           "Ftrl": ("float32", "float64"), "FtrlV2": ("float32", "float64")}


# Optimizers with only Sparse* forms here (their dense forms are older).
_SPARSE_ONLY = [
    ("Adagrad", ["s:var", "s:accum:pos", "lr", "grad"], False),
    ("Momentum", ["s:var", "s:accum", "lr", "grad", "momentum"], False),
    ("RMSProp", ["s:var", "s:ms:pos", "s:mom", "lr", "rho", "momentum", "epsilon", "grad"],
     False),
]
_NO_SPARSE = ("AdaMax", "AddSign", "PowerSign", "AdamWithAmsgrad")
_SPARSE_DTYPES = {"RMSProp": ("float32", "float64", "float16"),
                  "CenteredRMSProp": ("float32", "float64")}


def _build(op, spec, dtype, shape, resource, name, attrs, scalar_override, grad_shape,
           indices=None):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    np_dtype = tf.as_dtype(dtype).as_numpy_dtype
    feeds, inputs, slots, assigns = {}, {}, [], []
    for arg in spec:
        parts = arg.split(":")
        if parts[0] == "s":
            key = parts[1]
            domain = parts[2] if len(parts) > 2 else "any"
            init = data(f"{name}/{key}", np.float32, shape, domain).astype(np_dtype)
            ph = tf.compat.v1.placeholder(dtype, None, name=f"init_{key}")
            feeds[ph] = init
            if resource:
                h = tf.raw_ops.VarHandleOp(dtype=dtype, shape=None, shared_name=key, name=key)
                assigns.append(tf.raw_ops.AssignVariableOp(resource=h, value=ph))
                inputs[key] = h
            else:
                v = tf.raw_ops.VariableV2(shape=tf.TensorShape(None), dtype=dtype, name=key)
                inputs[key] = tf.raw_ops.Assign(ref=v, value=ph, validate_shape=False)
            slots.append(key)
        elif arg in ("grad", "delta"):
            if indices is not None:
                arg = "grad"
                grad_shape = grad_shape or (len(indices),) + tuple(shape[1:])
                ind = tf.compat.v1.placeholder(tf.int32, None, name="indices")
                feeds[ind] = np.array(indices, np.int32)
                inputs["indices"] = ind
            ph = tf.compat.v1.placeholder(dtype, None, name=arg)
            feeds[ph] = data(f"{name}/{arg}", np.float32, grad_shape or shape).astype(np_dtype)
            inputs[arg] = ph
        elif arg == "step":
            inputs["global_step"] = tf.constant(3, tf.int64)
        elif arg in scalar_override and np.ndim(scalar_override[arg]) > 0:
            ph = tf.compat.v1.placeholder(dtype, None, name=arg)  # shape checked at run time
            feeds[ph] = np.asarray(scalar_override[arg], np_dtype)
            inputs[arg] = ph
        else:
            value = scalar_override.get(arg, _SCALARS[arg])
            inputs[arg] = tf.constant(np.asarray(value, np_dtype))
    prefix = ("Resource" if resource else "") + ("SparseApply" if indices is not None else "Apply")
    with tf.control_dependencies(assigns):
        apply = getattr(tf.raw_ops, prefix + op)(**inputs, **attrs)
    with tf.control_dependencies([apply]):
        if resource:
            fetches = [tf.raw_ops.ReadVariableOp(resource=inputs[k], dtype=dtype) for k in slots]
        else:
            fetches = [tf.identity(inputs[k]) for k in slots]
    if dtype == tf.bfloat16:
        fetches = [tf.cast(f, tf.float32) for f in fetches]
    return fetches, feeds


def _case(op, spec, dtype, shape, resource, variant="", attrs=None, scalars=None,
          grad_shape=None, indices=None, **kw):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    full = (("Resource" if resource else "") + ("SparseApply" if indices is not None else "Apply")
            + op)
    dt = tf.as_dtype(dtype)
    name = f"{full}/{dt.name}{list(shape)}{variant}".replace(" ", "")
    return OpCase(name, [full], lambda: _build(op, spec, dt, shape, resource, name, attrs or {},
                                               scalars or {}, grad_shape, indices), **kw)


def _sparse_cases():
    for op, spec, resource_only in _OPTIMIZERS + _SPARSE_ONLY:
        if op in _NO_SPARSE:
            continue
        for resource in ((True,) if resource_only else (False, True)):
            dtypes = _SPARSE_DTYPES.get(op, _DTYPES.get(op, ("float32", "float64", "float16")))
            for dtype in dtypes:
                yield _case(op, spec, dtype, (5, 3), resource, indices=[3, 0, 4])
            yield _case(op, spec, "float64", (4,), resource, "/int_rows", indices=[1, 2])
            yield _case(op, spec, "float32", (5, 3), resource, "/no_indices", indices=[])
            yield _case(op, spec, "float32", (5, 3), resource, "/index_range", indices=[1, 5],
                        expect_error=r"indices\[1\] = 5 is not in \[0, 5\)"
                        if op == "KerasMomentum" else
                        "Index 5 at offset 1 in indices is out of range")
            yield _case(op, spec, "float32", (5, 3), resource, "/grad_rows", indices=[1, 2],
                        grad_shape=(3, 3), expect_error="grad must be the same size as indices "
                                                        "in the first dimension.")
            yield _case(op, spec, "float32", (5, 3), resource, "/grad_dims", indices=[1, 2],
                        grad_shape=(2, 4), expect_error="var and grad must match in dimension 1")
    yield _case("Adagrad", _SPARSE_ONLY[0][1], "float64", (5, 3), False, "/repeated",
                indices=[2, 0, 2])


def cases():
    yield from _sparse_cases()
    for op, spec, resource_only in _OPTIMIZERS:
        for resource in ((True,) if resource_only else (False, True)):
            for dtype in _DTYPES.get(op, ("float32", "float64", "float16")):
                yield _case(op, spec, dtype, (3, 4), resource)
            yield _case(op, spec, "float32", (0,), resource)
        resource = resource_only
        if op in ("Ftrl", "FtrlV2"):
            yield _case(op, spec, "float32", (5,), resource, "/linear_by_lr",
                        attrs={"multiply_linear_by_lr": True})
            yield _case(op, spec, "float64", (5,), resource, "/lr_power",
                        scalars={"lr_power": -0.3})
        if op in ("ProximalAdagrad", "ProximalGradientDescent", "AdagradDA"):
            yield _case(op, spec, "float64", (5,), resource, "/no_l1", scalars={"l1": 0.0})
        if op == "KerasMomentum":
            yield _case(op, spec, "float64", (5,), resource, "/nesterov",
                        attrs={"use_nesterov": True})
        if op == "AdagradV2":
            yield _case(op, spec, "float64", (5,), resource, "/no_update",
                        attrs={"update_slots": False})
        if "lr" in spec:
            yield _case(op, spec, "float32", (3,), resource, "/lr_vector", scalars={"lr": [0.1]},
                        expect_error=r"lr is not a (positive )?scalar ?: \[1\]")
        yield _case(op, spec, "float32", (3,), resource, "/grad_shape",
                    grad_shape=(4,), expect_error=r"do not have the same shape")
