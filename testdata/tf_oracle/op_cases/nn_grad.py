"""Pooling and convolution gradients beyond MaxPoolGrad/AvgPoolGrad/
Conv2DBackprop*: MaxPoolGradV2, MaxPoolGradGrad(V2), MaxPoolWithArgmax,
MaxPoolGradWithArgmax, MaxPool3DGrad, MaxPool3DGradGrad, AvgPool3DGrad."""
import numpy as np

from op_case import OpCase, data

F16, F32, F64 = np.float16, np.float32, np.float64
BF16 = "bfloat16"
REAL = (F32, F64, np.int32, np.int64, F16, BF16, np.uint8, np.int8,
        np.int16, np.uint16, np.uint32, np.uint64)


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _dname(dtype):
    return dtype if isinstance(dtype, str) else np.dtype(dtype).name


def _name(op, dtype, shape, variant=""):
    base = f"{op}/{_dname(dtype)}{list(shape)}".replace(" ", "")
    return base + (f"/{variant}" if variant else "")


def _tol(dtype):
    if dtype in (F16, BF16):
        return 2e-2
    return 1e-12 if dtype == F64 else None


def _values(name, dtype, shape, domain):
    """Seeded values; floats rounded to tenths so windows have ties."""
    if isinstance(domain, np.ndarray):
        return domain
    if dtype == BF16 or np.dtype(dtype).kind == "f":
        v = np.round(data(name, F32, shape, domain), 1)
        return v if dtype == BF16 else v.astype(dtype)
    return data(name, dtype, shape, domain)


def _case(op, name, specs, make, dtype=F32, error=None, rtol=None, atol=None,
          edit=None):
    """specs: (arg, dtype, shape, domain or values) per fed input; bfloat16 is
    fed as float32 and cast in the graph. make(tf, *inputs) -> fetches."""
    def build():
        tf = _tf()
        feeds, args = {}, []
        for arg, dt, shape, domain in specs:
            fed = F32 if dt == BF16 else dt
            p = tf.compat.v1.placeholder(fed, None if error else shape, name=arg)
            feeds[p] = _values(f"{name}/{arg}", dt, shape, domain).astype(fed)
            args.append(tf.cast(p, tf.bfloat16) if dt == BF16 else p)
        outs = make(tf, *args)
        return [tf.cast(y, tf.float32) if y.dtype == tf.bfloat16 else y
                for y in outs], feeds
    tol = _tol(dtype)
    return OpCase(name, [op], build, rtol=rtol or tol, atol=atol or tol,
                  expect_error=error, edit=edit)


# ---- 2-D max-pool gradients ----

def _out_shape(shape, k, s, padding):
    def dim(n, kk, ss):
        return -(-n // ss) if padding == "SAME" else (n - kk + ss) // ss
    return [shape[0], dim(shape[1], k[1], s[1]), dim(shape[2], k[2], s[2]), shape[3]]


def _max_pool_grad(op, dtype, shape=(2, 5, 6, 3), k=(1, 3, 3, 1), s=(1, 2, 2, 1),
                   padding="SAME", variant="", error=None, grad_shape=None):
    name = _name(op, dtype, shape, variant)
    out = _out_shape(shape, k, s, padding)
    gradgrad = "GradGrad" in op
    gshape = grad_shape or (list(shape) if gradgrad else out)

    def make(tf, x, g):
        if dtype in (np.uint32, np.uint64):  # MaxPool has no kernel for them
            y = tf.cast(tf.raw_ops.MaxPool(input=tf.cast(x, tf.int64), ksize=k,
                                           strides=s, padding=padding), x.dtype)
        else:
            y = tf.raw_ops.MaxPool(input=x, ksize=k, strides=s, padding=padding)
        if op.endswith("V2"):
            return [getattr(tf.raw_ops, op)(
                orig_input=x, orig_output=y, grad=g, ksize=tf.constant(k, tf.int32),
                strides=tf.constant(s, tf.int32), padding=padding, name="z")]
        return [getattr(tf.raw_ops, op)(orig_input=x, orig_output=y, grad=g, ksize=k,
                                         strides=s, padding=padding, name="z")]
    return _case(op, name, [("x", dtype, shape, "small"), ("g", dtype, gshape, "small")],
                 make, dtype, error)


def _with_argmax(dtype, shape=(2, 5, 6, 3), k=(1, 3, 3, 1), s=(1, 2, 2, 1),
                 padding="SAME", targmax="int64", include_batch=False, variant="",
                 error=None):
    op = "MaxPoolWithArgmax"
    name = _name(op, dtype, shape, variant)

    def make(tf, x):
        y = tf.raw_ops.MaxPoolWithArgmax(
            input=x, ksize=k, strides=s, padding=padding, Targmax=getattr(tf, targmax),
            include_batch_in_index=include_batch, name="z")
        return [y.output, y.argmax]
    return _case(op, name, [("x", dtype, shape, "small")], make, dtype, error)


def _grad_with_argmax(dtype, shape=(2, 5, 6, 3), k=(1, 3, 3, 1), s=(1, 2, 2, 1),
                      padding="SAME", include_batch=False, variant="", error=None,
                      grad_shape=None):
    op = "MaxPoolGradWithArgmax"
    name = _name(op, dtype, shape, variant)
    gshape = grad_shape or _out_shape(shape, k, s, padding)

    def make(tf, x, g):
        y = tf.raw_ops.MaxPoolWithArgmax(input=x, ksize=k, strides=s, padding=padding,
                                         include_batch_in_index=include_batch)
        return [tf.raw_ops.MaxPoolGradWithArgmax(
            input=x, grad=g, argmax=y.argmax, ksize=k, strides=s, padding=padding,
            include_batch_in_index=include_batch, name="z")]
    return _case(op, name, [("x", dtype, shape, "small"), ("g", dtype, gshape, "small")],
                 make, dtype, error)


def _grad_depth_window():
    op = "MaxPoolGradWithArgmax"
    shape, pooled = (2, 3, 3, 4), (2, 3, 3, 2)
    name = _name(op, F32, shape, "depth_window")
    argmax = data(name + "/argmax", np.int64, pooled, "pos") * 3  # in [3, 27]

    def make(tf, x, g, a):
        return [tf.raw_ops.MaxPoolGradWithArgmax(
            input=x, grad=g, argmax=a, ksize=(1, 1, 1, 2), strides=(1, 1, 1, 2),
            padding="VALID", name="z")]
    return _case(op, name, [("x", F32, shape, "small"), ("g", F32, pooled, "small"),
                            ("a", np.int64, pooled, argmax)], make, F32)


def _cases_2d():
    for op in ("MaxPoolGradV2", "MaxPoolGradGrad", "MaxPoolGradGradV2"):
        for dtype in REAL:
            yield _max_pool_grad(op, dtype)
        for padding in ("SAME", "VALID"):
            yield _max_pool_grad(op, F32, shape=(1, 7, 7, 2), k=(1, 2, 3, 1),
                                 s=(1, 1, 2, 1), padding=padding, variant=padding)
        yield _max_pool_grad(op, F32, shape=(0, 4, 4, 2), variant="empty")
        yield _max_pool_grad(op, F32, variant="bad_grad", grad_shape=(2, 3, 2, 3),
                             error="Expected grad shape to be")
        yield _max_pool_grad(op, F32, k=(1, 1, 1, 1), s=(1, 1, 1, 1),
                             shape=(1, 3, 3, 2), variant="k1")
    for dtype in REAL:
        yield _with_argmax(dtype)
        yield _grad_with_argmax(dtype)
    for padding in ("SAME", "VALID"):
        for include in (False, True):
            v = f"{padding}_batch{int(include)}"
            yield _with_argmax(F32, padding=padding, include_batch=include, variant=v)
            yield _with_argmax(F64, padding=padding, include_batch=include,
                               targmax="int32", variant=v + "_i32")
            yield _grad_with_argmax(F32, padding=padding, include_batch=include, variant=v)
    yield _with_argmax(F32, shape=(0, 4, 4, 2), variant="empty",
                       error="tensor_in must not be empty")
    yield _with_argmax(F32, k=(2, 2, 2, 1), variant="batch",
                       error="Pooling is not yet supported on the batch dimension")
    yield _with_argmax(F32, k=(1, 2, 2, 3), s=(1, 1, 1, 1), variant="depth",
                       error="exactly one of pooling across depth")
    yield _grad_with_argmax(F32, variant="bad_grad", grad_shape=(2, 3, 2, 3),
                            error="Expected grad shape to be")
    # A depth window: TensorFlow's argmax kernels then pool 1x1 windows (an
    # identity) while the gradient takes out_backprop of the pooled depth.
    yield _with_argmax(F32, shape=(2, 3, 3, 4), k=(1, 1, 1, 2), s=(1, 1, 1, 2),
                       padding="VALID", variant="depth_window")
    yield _with_argmax(F32, shape=(2, 3, 3, 4), k=(1, 1, 1, 2), s=(1, 1, 1, 1),
                       variant="depth_stride",
                       error="requires the depth window to equal the depth stride")
    yield _grad_depth_window()


# ---- 3-D pooling gradients ----

def _pool3d_grad(op, dtype, shape=(2, 4, 5, 5, 2), k=(1, 2, 3, 2, 1),
                 s=(1, 2, 2, 1, 1), padding="SAME", variant="", error=None,
                 grad_shape=None):
    name = _name(op, dtype, shape, variant)
    dims = [-(-n // st) if padding == "SAME" else (n - kk + st) // st
            for n, kk, st in zip(shape[1:4], k[1:4], s[1:4])]
    out = [shape[0]] + dims + [shape[4]]
    if op == "AvgPool3DGrad":
        def make_avg(tf, g):
            return [tf.raw_ops.AvgPool3DGrad(
                orig_input_shape=tf.constant(shape, tf.int32), grad=g, ksize=k,
                strides=s, padding=padding, name="z")]
        return _case(op, name, [("g", dtype, grad_shape or out, "small")], make_avg,
                     dtype, error)
    gradgrad = op == "MaxPool3DGradGrad"
    gshape = grad_shape or (list(shape) if gradgrad else out)

    def make(tf, x, g):
        y = tf.raw_ops.MaxPool3D(input=x, ksize=k, strides=s, padding=padding)
        return [getattr(tf.raw_ops, op)(orig_input=x, orig_output=y, grad=g, ksize=k,
                                         strides=s, padding=padding, name="z")]
    return _case(op, name, [("x", dtype, shape, "small"), ("g", dtype, gshape, "small")],
                 make, dtype, error)


def _cases_3d():
    for op in ("MaxPool3DGrad", "MaxPool3DGradGrad", "AvgPool3DGrad"):
        for dtype in (F32, BF16):
            yield _pool3d_grad(op, dtype)
        yield _pool3d_grad(op, F32, padding="VALID", variant="VALID")
        yield _pool3d_grad(op, F32, shape=(1, 3, 4, 4, 1), k=(1, 3, 3, 3, 1),
                           s=(1, 1, 1, 1, 1), variant="overlap")
        yield _pool3d_grad(op, F32, shape=(0, 3, 4, 4, 1), variant="empty",
                           error=("received empty tensor tensor_in: Tensor<type: float "
                                  r"shape: \[0,3,4,4,1\] values: >")
                           if op == "MaxPool3DGradGrad" else None)
        yield _pool3d_grad(op, F32, k=(1, 2, 2, 2, 2), variant="depth",
                           error="Pooling is not yet supported on the depth dimension")
    for op in ("MaxPool3DGrad", "MaxPool3DGradGrad"):
        yield _pool3d_grad(op, F32, variant="bad_grad", grad_shape=(2, 1, 1, 1, 2),
                           error="Expected grad shape to be")


# ---- 3-D convolution gradients ----

def _as_v1(op, operand, producer):
    """An `edit` turning the V2 node `z` into its deprecated V1 `op`: the
    sizes input becomes the `operand` placeholder itself."""
    def edit(graph_def):
        for node in graph_def.node:
            if node.name == "z":
                node.op = op
                node.input[0 if op.endswith("Input") else 1] = operand
                for attr in ("data_format", "Tshape"):
                    if attr in node.attr:
                        del node.attr[attr]
        if producer is not None:
            graph_def.versions.producer = producer
    return edit


def _conv3d_grad(op, dtype, x_shape=(2, 5, 6, 4, 3), f_shape=(2, 3, 2, 3, 4),
                 s=(1, 2, 1, 2, 1), padding="SAME", variant="", error=None,
                 dy_shape=None, v1=False, producer=9, tshape="int32", **attrs):
    name = _name(op if not v1 else op.replace("V2", ""), dtype, x_shape, variant)
    dims = [-(-n // st) if padding == "SAME" else (n - k + st) // st
            for n, k, st in zip(x_shape[1:4], f_shape[0:3], s[1:4])]
    dy = dy_shape or [x_shape[0]] + dims + [f_shape[4]]
    input_grad = op == "Conv3DBackpropInputV2"

    def make(tf, operand, g):
        if input_grad:
            return [tf.raw_ops.Conv3DBackpropInputV2(
                input_sizes=tf.constant(x_shape, getattr(tf, tshape)), filter=operand,
                out_backprop=g, strides=s, padding=padding, name="z", **attrs)]
        return [tf.raw_ops.Conv3DBackpropFilterV2(
            input=operand, filter_sizes=tf.constant(f_shape, tf.int32),
            out_backprop=g, strides=s, padding=padding, name="z", **attrs)]
    operand = ("f", dtype, f_shape, "small") if input_grad else ("x", dtype, x_shape, "small")
    specs = [operand, ("g", dtype, dy, "small")]
    edit = None
    if v1:
        v1_op = op.replace("V2", "")
        # The V1 op takes the operand whose shape V2 reads from a sizes input.
        other = ("x", dtype, x_shape, "small") if input_grad else ("f", dtype, f_shape, "small")
        specs = ([other] + specs) if input_grad else (specs[:1] + [other] + specs[1:])
        inner = make

        def make(tf, *args):  # noqa: F811
            if input_grad:
                _, f, g = args
                return inner(tf, f, g)
            x, _, g = args
            return inner(tf, x, g)
        edit = _as_v1(v1_op, other[0], producer)
    tol = 2e-2 if dtype in (F16, BF16) else (1e-10 if dtype == F64 else 2e-5)
    return _case(v1_op if v1 else op, name, specs, make, dtype, error,
                 rtol=tol, atol=tol, edit=edit)


def _cases_conv3d():
    for op in ("Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"):
        for dtype in (F32, F64):
            yield _conv3d_grad(op, dtype)
        # TensorFlow rounds the half sums as it goes: few terms per sum keep
        # its rounding within the oracle's half tolerance of the exact sum.
        for dtype in (F16, BF16):
            yield _conv3d_grad(op, dtype, x_shape=(1, 3, 3, 2, 2),
                               f_shape=(2, 1, 2, 2, 2), s=(1, 2, 1, 1, 1))
        yield _conv3d_grad(op, F32, padding="VALID", variant="VALID")
        yield _conv3d_grad(op, F32, s=(1, 1, 1, 1, 1), variant="stride1")
        yield _conv3d_grad(op, F32, x_shape=(0, 5, 6, 4, 3), variant="empty")
        yield _conv3d_grad(op, F32, variant="bad_dy", dy_shape=(2, 2, 6, 2, 4),
                           error="Size of out_backprop doesn't match computed")
        yield _conv3d_grad(op, F32, variant="dilated", dilations=[1, 2, 1, 1, 1],
                           error="does not yet support dilation rates larger than 1")
        yield _conv3d_grad(op, F32, variant="ncdhw", data_format="NCDHW",
                           error="only supports NDHWC on the CPU")
        yield _conv3d_grad(op, F32, variant="bad_channels", f_shape=(2, 3, 2, 2, 4),
                           error="must have the same number of channels")
        for dtype in (F32, F64):
            yield _conv3d_grad(op, dtype, v1=True, variant="v1")
        yield _conv3d_grad(op, F32, v1=True, producer=None, variant="v1_new",
                           error="removed in version 10")
    yield _conv3d_grad("Conv3DBackpropInputV2", F32, tshape="int64", variant="i64")


# ---- Dilation2D and its gradients ----

def _dilation(op, dtype, shape=(2, 6, 5, 3), f_shape=(2, 3, 3), s=(1, 2, 1, 1),
              rates=(1, 1, 2, 1), padding="SAME", variant="", error=None,
              dy_shape=None):
    name = _name(op, dtype, shape, variant)
    k_eff = [f_shape[i] + (f_shape[i] - 1) * (rates[i + 1] - 1) for i in range(2)]
    dims = [-(-n // st) if padding == "SAME" else (n - k + st) // st
            for n, k, st in zip(shape[1:3], k_eff, s[1:3])]
    dy = dy_shape or [shape[0]] + dims + [shape[3]]
    specs = [("x", dtype, shape, "small"), ("f", dtype, f_shape, "small")]
    if op != "Dilation2D":
        specs.append(("g", dtype, dy, "small"))

    def make(tf, *args):
        kw = dict(input=args[0], filter=args[1], strides=s, rates=rates,
                  padding=padding, name="z")
        if op != "Dilation2D":
            kw["out_backprop"] = args[2]
        return [getattr(tf.raw_ops, op)(**kw)]
    return _case(op, name, specs, make, dtype, error)


def _cases_dilation():
    for op in ("Dilation2D", "Dilation2DBackpropInput", "Dilation2DBackpropFilter"):
        for dtype in REAL:
            yield _dilation(op, dtype)
        yield _dilation(op, F32, padding="VALID", variant="VALID")
        yield _dilation(op, F32, s=(1, 1, 1, 1), rates=(1, 3, 1, 1), variant="rate3")
        yield _dilation(op, F32, shape=(0, 6, 5, 3), variant="empty")
        yield _dilation(op, F32, f_shape=(2, 3, 2), variant="bad_depth",
                        error="input and filter must have the same depth: 3 vs 2")
        yield _dilation(op, F32, s=(2, 1, 1, 1), variant="batch_stride",
                        error="Stride is only supported across spatial dimensions")
    for op in ("Dilation2DBackpropInput", "Dilation2DBackpropFilter"):
        yield _dilation(op, F32, variant="bad_dy", dy_shape=(2, 3, 4, 3),
                        error="out_backprop has incompatible size")


# ---- Fractional pooling ----
# Only seeded, deterministic cases: with seed = seed2 = 0 the regions are
# random in both, and TensorFlow refuses seeds without `deterministic`.

FRAC = (F32, F64, np.int32, np.int64)


def _frac(op, dtype, shape=(2, 10, 9, 3), ratio=(1.0, 1.44, 1.73, 1.0),
          pseudo=False, overlapping=False, seed=7, seed2=3, deterministic=True,
          variant="", error=None):
    name = _name(op, dtype, shape, variant)
    fwd = op.replace("Grad", "")
    out = [int(np.floor(np.float32(n) / np.float32(r))) for n, r in zip(shape, ratio)]
    specs = [("x", dtype, shape, "small")]
    if op.endswith("Grad"):
        specs.append(("g", dtype, out, "small"))

    def make(tf, x, *g):
        y = getattr(tf.raw_ops, fwd)(
            value=x, pooling_ratio=list(ratio), pseudo_random=pseudo,
            overlapping=overlapping, deterministic=deterministic, seed=seed,
            seed2=seed2, name="z" if fwd == op else "pool")
        if op == "FractionalMaxPoolGrad":
            return [tf.raw_ops.FractionalMaxPoolGrad(
                orig_input=x, orig_output=y.output, out_backprop=g[0],
                row_pooling_sequence=y.row_pooling_sequence,
                col_pooling_sequence=y.col_pooling_sequence,
                overlapping=overlapping, name="z")]
        if op == "FractionalAvgPoolGrad":
            return [tf.raw_ops.FractionalAvgPoolGrad(
                orig_input_tensor_shape=tf.shape(x, out_type=tf.int64), out_backprop=g[0],
                row_pooling_sequence=y.row_pooling_sequence,
                col_pooling_sequence=y.col_pooling_sequence,
                overlapping=overlapping, name="z")]
        return list(y)
    return _case(op, name, specs, make, dtype, error)


def _cases_fractional():
    for op in ("FractionalMaxPool", "FractionalAvgPool", "FractionalMaxPoolGrad",
               "FractionalAvgPoolGrad"):
        for dtype in FRAC:
            yield _frac(op, dtype)
        for pseudo in (False, True):
            for overlapping in (False, True):
                yield _frac(op, F32, pseudo=pseudo, overlapping=overlapping,
                            variant=f"pseudo{int(pseudo)}_overlap{int(overlapping)}")
        yield _frac(op, F64, shape=(1, 25, 7, 2), ratio=(1.0, 2.3, 1.0, 1.0),
                    pseudo=True, seed=1, seed2=0, variant="ratio2.3")
        yield _frac(op, F32, shape=(1, 12, 8, 1), ratio=(1.0, 2.0, 4.0, 1.0),
                    seed=0, seed2=11, variant="exact_ratio")
    for op in ("FractionalMaxPool", "FractionalAvgPool"):
        yield _frac(op, F32, deterministic=False, variant="seed_not_det",
                    error="Both seed and seed2 should be 0 if deterministic is false")
        yield _frac(op, F32, shape=(0, 10, 9, 3), variant="empty",
                    error="Pooling ratio is higher than input dimension size for "
                          "dimension 0")
        yield _frac(op, F32, ratio=(2.0, 1.5, 1.5, 1.0), variant="batch",
                    error="is not yet supported on the batch nor channel dimension")


# ---- ExtractVolumePatches, ExtractGlimpse(V2) ----

def _volume_patches(dtype, shape=(2, 3, 4, 5, 2), k=(1, 2, 2, 3, 1),
                    s=(1, 1, 2, 2, 1), padding="SAME", variant="", error=None):
    op = "ExtractVolumePatches"
    name = _name(op, dtype, shape, variant)

    def make(tf, x):
        return [tf.raw_ops.ExtractVolumePatches(input=x, ksizes=k, strides=s,
                                                padding=padding, name="z")]
    return _case(op, name, [("x", dtype, shape, "small")], make, dtype, error)


def _glimpse(op, size, offsets, shape=(3, 7, 6, 2), centered=True,
             normalized=True, noise="zero", uniform_noise=False, variant="",
             error=None):
    """Random noise differs run to run in TensorFlow itself: cases with
    noise "uniform"/"gaussian" keep every glimpse inside its image."""
    name = _name(op, F32, shape, variant)
    offsets = np.array(offsets, np.float32)

    def make(tf, x, off):
        return [getattr(tf.raw_ops, op)(
            input=x, size=tf.constant(size, tf.int32), offsets=off,
            centered=centered, normalized=normalized, uniform_noise=uniform_noise,
            noise=noise, name="z")]
    return _case(op, name, [("x", F32, shape, "any"),
                            ("off", F32, offsets.shape, offsets)], make, F32, error)


def _cases_patches_glimpses():
    for dtype in REAL:
        yield _volume_patches(dtype)
    yield _volume_patches(F32, padding="VALID", variant="VALID")
    yield _volume_patches(F32, shape=(0, 3, 4, 5, 2), variant="empty")
    yield _volume_patches(F32, k=(1, 2, 2, 2, 2), variant="depth",
                          error="Only support ksizes across space")
    yield _volume_patches(F32, k=(1, 5, 2, 2, 1), padding="VALID", variant="big",
                          error="Computed output size would be negative")
    edge = [[0.9, -0.95], [-0.3, 0.2], [0.0, 0.0]]
    inside = [[0.1, -0.1], [-0.2, 0.15], [0.0, 0.0]]
    pixels = [[5.0, -2.0], [1.7, 2.2], [-3.5, 4.9]]
    for op in ("ExtractGlimpse", "ExtractGlimpseV2"):
        for centered in (False, True):
            for normalized in (False, True):
                v = f"c{int(centered)}_n{int(normalized)}"
                offs = pixels if not normalized else (edge if centered else
                                                       [[0.9, 0.1], [0.3, 0.7], [0.0, 0.5]])
                yield _glimpse(op, (3, 4), offs, centered=centered,
                               normalized=normalized, variant=v)
        yield _glimpse(op, (9, 2), edge, variant="taller")
        yield _glimpse(op, (2, 3), inside, noise="uniform", uniform_noise=True,
                       variant="uniform_inside")
        yield _glimpse(op, (2, 3), inside, noise="gaussian", variant="gaussian_inside")
        yield _glimpse(op, (0, 3), edge, variant="empty")
        yield _glimpse(op, (2, 3), edge, noise="salt", variant="bad_noise",
                       error="The noise could only be uniform, gaussian, or zero, gotsalt")
        yield _glimpse(op, (2, 3), [[0.0, 0.0]], variant="bad_batch",
                       error="first dimension should be batch")


# ---- IgammaGradA, RandomGammaGrad ----

def _gamma_grad(op, dtype, a_vals, x_vals, variant):
    a_vals, x_vals = np.array(a_vals, dtype), np.array(x_vals, dtype)
    name = _name(op, dtype, a_vals.shape, variant)
    names = ("a", "x") if op == "IgammaGradA" else ("alpha", "sample")

    def make(tf, a, x):
        return [getattr(tf.raw_ops, op)(**{names[0]: a, names[1]: x}, name="z")]
    return _case(op, name, [(names[0], dtype, a_vals.shape, a_vals),
                            (names[1], dtype, x_vals.shape, x_vals)], make, dtype)


def _cases_gamma():
    rng = np.random.default_rng(11)
    a = rng.uniform(0.1, 8.0, (4, 6))
    x = rng.uniform(0.05, 12.0, (4, 6))
    edges_a = [0.5, 1.0, 3.0, 2.0, -1.0, 0.0, 2.5, np.nan, 1.5, 7.0, 30.0, 0.01]
    edges_x = [0.0, 1.0, 3.0, 50.0, 1.0, 1.0, np.inf, 1.0, -1.0, 0.2, 28.0, 2.0]
    for op in ("IgammaGradA", "RandomGammaGrad"):
        for dtype in (F32, F64):
            yield _gamma_grad(op, dtype, a, x, "random")
            yield _gamma_grad(op, dtype, edges_a, edges_x, "edges")
            yield _gamma_grad(op, dtype, a, x[:1], "broadcast")


def cases():  # noqa: F811
    yield from _cases_2d()
    yield from _cases_3d()
    yield from _cases_conv3d()
    yield from _cases_dilation()
    yield from _cases_fractional()
    yield from _cases_patches_glimpses()
    yield from _cases_gamma()
