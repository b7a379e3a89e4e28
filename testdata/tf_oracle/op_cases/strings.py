"""String hashing, case mapping, splitting, n-grams, the bincounts, ragged to
dense/sparse and the mutable lookup tables: what Keras' TextVectorization,
StringLookup/IntegerLookup, Hashing and CategoryEncoding layers run."""
import numpy as np

from op_case import OpCase, data

WORDS = np.array(["", "a", "hello world", "Ünïcødé ß", "  pad\t\n", "x" * 40,
                  "The Cat.", "日本語"], dtype=object)


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    return tf


def _strings(name, shape):
    """Seeded words of any shape (data() draws strings for vectors only)."""
    return data(name, object, (int(np.prod(shape)),)).reshape(shape)


def _str_in(name, shape):
    """A string input: a constant (`dfg run` feeds no object arrays)."""
    tf = _tf()
    v = WORDS if shape == (8,) else _strings(name, shape)
    return tf.constant(v, tf.string, shape=shape, name="x"), {}


def _string_unary(op, shapes=((8,), (2, 3), (0,)), **attrs):
    def make(shape, suffix):
        name = f"{op}/string{list(shape)}{suffix}".replace(" ", "")

        def build():
            x, feeds = _str_in(name, shape)
            arg = "string_tensor" if op == "StringToHashBucket" else "input"
            y = getattr(_tf().raw_ops, op)(**{arg: x}, **attrs)
            return [y], feeds
        return OpCase(name, [op], build)
    suffix = "".join(f"/{k}={v}" for k, v in attrs.items())
    return [make(s, suffix) for s in shapes]


def _hash_cases():
    out = []
    for n in (1, 7, 2**40):
        out += _string_unary("StringToHashBucketFast", num_buckets=n)
        out += _string_unary("StringToHashBucket", num_buckets=n)
    for key in ([1, 2], [0, -1], [2**62, 12345]):
        out += _string_unary("StringToHashBucketStrong", num_buckets=1000, key=key)
    out.append(OpCase("StringToHashBucketStrong/bad_key", ["StringToHashBucketStrong"],
                      lambda: ([_tf().raw_ops.StringToHashBucketStrong(
                          input=["a"], num_buckets=3, key=[1, 2, 3])], {}),
                      expect_error="Key must have 2 elements"))
    return out


def _fingerprint(dtype, shape, method="farmhash64", error=None):
    name = f"Fingerprint/{np.dtype(dtype).name}{list(shape)}".replace(" ", "")
    if method != "farmhash64" or error:
        name += f"/{method}"

    def build():
        tf = _tf()
        if dtype is object:
            x, feeds = _str_in(name, shape)
        else:  # no static shape: TensorFlow's shape function would refuse rank 0
            x = tf.compat.v1.placeholder(dtype, None, name="x")
            feeds = {x: data(name, dtype, shape)}
        # fed (as bytes), so that the shape function does not see the method
        m = tf.compat.v1.placeholder(tf.string, (), name="method")
        feeds[m] = np.array(method.encode())
        y = tf.raw_ops.Fingerprint(data=x, method=m)
        return [y], feeds
    return OpCase(name, ["Fingerprint"], build, expect_error=error)


def _tensor_to_hash(dtype, n):
    name = f"_TensorToHashBucketFast/{np.dtype(dtype).name}[2,3]/{n}"

    def build():
        tf = _tf()
        from tensorflow.python.framework import op_def_library  # pylint: disable=import-outside-toplevel
        x = tf.compat.v1.placeholder(dtype, (2, 3), name="x")
        op = op_def_library._apply_op_helper(  # pylint: disable=protected-access
            "_TensorToHashBucketFast", input=x, num_buckets=n, name="hash")[2]
        v = data(name, dtype, (2, 3))
        if np.dtype(dtype).kind == "i":
            v[0, 0] = np.iinfo(dtype).min
        v[0, 1] = np.iinfo(dtype).max
        return [op.outputs[0]], {x: v}
    error = None if np.dtype(dtype).kind == "i" else f"Type not supported: {np.dtype(dtype).name}"
    return OpCase(name, ["_TensorToHashBucketFast"], build, expect_error=error)


def _case_cases():
    out = []
    for op in ("StringLower", "StringUpper"):
        out += _string_unary(op)
        out += _string_unary(op, shapes=((8,),), encoding="utf-8")
        out.append(OpCase(f"{op}/bad_encoding", [op], lambda op=op: (
            [getattr(_tf().raw_ops, op)(input=["a"], encoding="utf-16")], {}),
            expect_error="only utf-8 or '' \\(no encoding\\) is supported"))
    out += _string_unary("StringStrip")
    out += _string_unary("StringLength")
    out += _string_unary("StringLength", shapes=((8,),), unit="UTF8_CHAR")
    return out


def _split(sep, maxsplit=-1, shape=(8,), error=None):
    sep_name = {"": "whitespace", " ": "space"}.get(sep, sep)
    name = f"StringSplitV2/{list(shape)}/sep={sep_name}/maxsplit={maxsplit}".replace(" ", "")

    def build():
        tf = _tf()
        v = (np.array(["a b  c", " lead", "trail ", "", "a,b,,c", "x<>y<>z", "\tq\nr ",
                       "  "], dtype=object) if shape == (8,) else _strings(name, shape))
        # reshaped to a fed shape: TensorFlow's shape function would refuse
        # a constant of rank 2 before the kernel does
        dims = tf.compat.v1.placeholder(tf.int32, (None,), name="dims")
        x = tf.reshape(tf.constant(v.reshape(-1), tf.string), dims)
        r = tf.raw_ops.StringSplitV2(input=x, sep=sep, maxsplit=maxsplit)
        return list(r), {dims: np.array(shape, np.int32)}
    return OpCase(name, ["StringSplitV2"], build, expect_error=error)


def _ngrams(widths, tsplits=np.int64, splits=(0, 3, 3, 4, 8), sep=" ", left="<", right=">",
            pad=-1, short=False, error=None, tag="", ndata=None):
    name = (f"StringNGrams/{np.dtype(tsplits).name}/w={list(widths)}/pad={pad}/short={short}"
            f"{tag}").replace(" ", "")

    def build():
        tf = _tf()
        d = tf.constant(["a", "b", "c", "d", "e", "f", "g", "h"][:ndata or splits[-1]], tf.string)
        s = tf.compat.v1.placeholder(tsplits, (len(splits),), name="splits")
        r = tf.raw_ops.StringNGrams(data=d, data_splits=s, separator=sep, ngram_widths=widths,
                                    left_pad=left, right_pad=right, pad_width=pad,
                                    preserve_short_sequences=short)
        return list(r), {s: np.array(splits, tsplits)}
    return OpCase(name, ["StringNGrams"], build, expect_error=error)


def _split_cases():
    out = [_split(" "), _split(""), _split(","), _split("<>"), _split(" ", 1), _split("", 1),
           _split("", 2), _split(",", 0), _split(" ", shape=(0,)),
           _split(" ", shape=(2, 2), error="input must be a vector, got shape: \\[2,2\\]")]
    for t in (np.int32, np.int64):
        out += [_ngrams([1], t), _ngrams([2], t), _ngrams([1, 3], t), _ngrams([2, 3], t, pad=0),
                _ngrams([2], t, pad=1), _ngrams([5], t, pad=0, short=True),
                _ngrams([5], t, pad=1, short=True)]
    out += [_ngrams([2], splits=(0,), tag="/no_rows"),
            _ngrams([0], error="ngram_widths must contain positive values"),
            _ngrams([2], splits=(1, 8), error="First split value must be 0, got 1", tag="/bad0"),
            _ngrams([2], splits=(0, 9), error="Invalid split value 9, must be in \\[0, 8\\]",
                    tag="/bad1"),
            _ngrams([2], splits=(0, 5), error="Last split value must be data size",
                    tag="/bad2", ndata=8),
            _ngrams([5], pad=-1, short=True, sep="", tag="/nosep")]
    return out


_BIN_T = (np.int32, np.int64, np.float32, np.float64)


def _dense_bincount(tidx, t, shape, binary=False, weights=True, size=5, error=None, tag=""):
    name = (f"DenseBincount/{np.dtype(tidx).name}/{np.dtype(t).name}{list(shape)}"
            f"/binary={binary}/weights={weights}{tag}").replace(" ", "")

    def build():
        tf = _tf()
        x = tf.compat.v1.placeholder(tidx, shape, name="x")
        w = tf.compat.v1.placeholder(t, shape if weights else (0,), name="w")
        n = tf.compat.v1.placeholder(tidx, (), name="size")
        y = tf.raw_ops.DenseBincount(input=x, size=n, weights=w, binary_output=binary)
        v = np.abs(data(name, tidx, shape, "small")).astype(tidx)
        if error and "non-negative!" in error:
            v.flat[0] = -1
        return [y], {x: v, w: data(name + "/w", t, shape if weights else (0,), "small"),
                     n: np.array(size, tidx)}
    return OpCase(name, ["DenseBincount"], build, expect_error=error)


def _bincount(t, shape, weights=True, error=None, tag=""):
    name = f"Bincount/{np.dtype(t).name}{list(shape)}/weights={weights}{tag}".replace(" ", "")

    def build():
        tf = _tf()
        x = tf.compat.v1.placeholder(np.int32, shape, name="x")
        w = tf.compat.v1.placeholder(t, shape if weights else (0,), name="w")
        y = tf.raw_ops.Bincount(arr=x, size=4, weights=w)
        v = np.abs(data(name, np.int32, shape, "small"))
        if error:
            v.flat[0] = -2
        return [y], {x: v, w: data(name + "/w", t, shape if weights else (0,), "small")}
    return OpCase(name, ["Bincount"], build, expect_error=error)


def _ragged_bincount(tidx, t, binary=False, weights=True, splits=(0, 2, 2, 6), neg=False,
                     error=None, tag=""):
    name = (f"RaggedBincount/{np.dtype(tidx).name}/{np.dtype(t).name}/binary={binary}"
            f"/weights={weights}{tag}")

    def build():
        tf = _tf()
        v = np.array([1, 3, 0, 3, 3, 7], tidx)
        if neg:
            v[2] = -1
        x = tf.compat.v1.placeholder(tidx, (6,), name="x")
        w = tf.constant(data(name, t, (6,) if weights else (0,), "small"))
        y = tf.raw_ops.RaggedBincount(splits=tf.constant(splits, tf.int64), values=x,
                                      size=tf.constant(4, tidx), weights=w,
                                      binary_output=binary)
        return [y], {x: v}
    return OpCase(name, ["RaggedBincount"], build, expect_error=error)


def _sparse_bincount(tidx, t, binary=False, weights=True, one_d=False, neg=False, error=None):
    name = (f"SparseBincount/{np.dtype(tidx).name}/{np.dtype(t).name}/binary={binary}"
            f"/weights={weights}/1d={one_d}{'/neg' if neg else ''}")

    def build():
        tf = _tf()
        if one_d:
            idx, shape = [[0], [2], [3], [5]], [6]
        else:
            idx, shape = [[0, 0], [0, 2], [2, 1], [2, 3]], [3, 4]
        v = np.array([1, 3, 3, 9], tidx)
        if neg:
            v[1] = -1
        x = tf.compat.v1.placeholder(tidx, (4,), name="x")
        w = tf.constant(data(name, t, (4,) if weights else (0,), "small"))
        y = tf.raw_ops.SparseBincount(indices=tf.constant(idx, tf.int64), values=x,
                                      dense_shape=tf.constant(shape, tf.int64),
                                      size=tf.constant(5, tidx), weights=w,
                                      binary_output=binary)
        return [y], {x: v}
    return OpCase(name, ["SparseBincount"], build, expect_error=error)


def _bincount_cases():
    out = []
    for tidx in (np.int32, np.int64):
        for t in _BIN_T:
            out += [_dense_bincount(tidx, t, (7,)), _dense_bincount(tidx, t, (3, 4)),
                    _ragged_bincount(tidx, t), _sparse_bincount(tidx, t),
                    _sparse_bincount(tidx, t, one_d=True)]
        for binary, weights in ((True, False), (False, False), (True, True)):
            out += [_dense_bincount(tidx, np.float32, (3, 4), binary, weights),
                    _dense_bincount(tidx, np.int64, (6,), binary, weights),
                    _ragged_bincount(tidx, np.float32, binary, weights),
                    _sparse_bincount(tidx, np.float32, binary, weights)]
    out += [_dense_bincount(np.int32, np.float32, (0,)),
            _dense_bincount(np.int32, np.float32, (2, 0)),
            _dense_bincount(np.int64, np.float32, (4,), size=0, tag="/size0"),
            _dense_bincount(np.int32, np.float32, (4,), error="Input arr must be non-negative!",
                            tag="/neg"),
            _dense_bincount(np.int32, np.float32, (4,), size=-1,
                            error="size \\(-1\\) must be non-negative", tag="/negsize"),
            _ragged_bincount(np.int64, np.float32, neg=True, tag="/neg",
                             error="Input must be non-negative"),
            _ragged_bincount(np.int64, np.float32, splits=(0, 2, 5), tag="/badsplits",
                             error="Splits must end with the number of values, got 5 instead "
                                   "of 6"),
            _ragged_bincount(np.int64, np.float32, splits=(1, 2, 6), tag="/badstart",
                             error="Splits must start with 0, not with 1"),
            _sparse_bincount(np.int32, np.float32, one_d=True, neg=True,
                             error="Input arr must be non-negative!")]
    for t in _BIN_T:
        out += [_bincount(t, (9,)), _bincount(t, (3, 3)), _bincount(t, (5,), weights=False)]
    out += [_bincount(np.float32, (0,)),
            _bincount(np.float32, (5,), error="Input arr must be non-negative!", tag="/neg")]
    return out


def _maybe_placeholder(v):
    """A placeholder fed `v`, or for strings a constant."""
    tf = _tf()
    if v.dtype == object:
        return tf.constant(v, tf.string), {}
    x = tf.compat.v1.placeholder(v.dtype, v.shape, name="values")
    return x, {x: v}


def _to_tensor(dtype, values, partitions, types, shape=None, default=0, tindex=np.int64,
               tshape=np.int64, tag="", error=None):
    name = f"RaggedTensorToTensor/{np.dtype(dtype).name}/{'+'.join(types)}{tag}"

    def build():
        tf = _tf()
        v = np.array(values, dtype)
        x, feeds = _maybe_placeholder(v)
        parts = [tf.constant(p, tindex) for p in partitions]
        s = tf.constant(-1 if shape is None else shape, tshape)
        y = tf.raw_ops.RaggedTensorToTensor(shape=s, values=x,
                                            default_value=tf.constant(default, x.dtype),
                                            row_partition_tensors=parts,
                                            row_partition_types=types)
        return [y], feeds
    return OpCase(name, ["RaggedTensorToTensor"], build, expect_error=error)


def _to_sparse(dtype, splits, values, tag=""):
    name = f"RaggedTensorToSparse/{np.dtype(dtype).name}/{len(splits)}{tag}"

    def build():
        tf = _tf()
        x, feeds = _maybe_placeholder(np.array(values, dtype))
        r = tf.raw_ops.RaggedTensorToSparse(
            rt_nested_splits=[tf.constant(s, tf.int64) for s in splits], rt_dense_values=x)
        return list(r), feeds
    return OpCase(name, ["RaggedTensorToSparse"], build)


def _ragged_cases():
    rs = ["ROW_SPLITS"]
    out = []
    for dt in (np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_):
        out.append(_to_tensor(dt, [1, 0, 1, 1, 0], [[0, 2, 2, 5]], rs, default=dt(0)))
    out += [
        _to_tensor(object, ["a", "b", "c"], [[0, 1, 3]], rs, default="", tag="/str"),
        _to_tensor(np.int64, [1, 2, 3, 4, 5], [[0, 2, 2, 5]], rs, shape=[-1, 2], tag="/cut"),
        _to_tensor(np.int64, [1, 2, 3, 4, 5], [[0, 2, 2, 5]], rs, shape=[4, 6], default=-1,
                   tag="/pad", tshape=np.int32),
        _to_tensor(np.int64, [1, 2, 3, 4, 5], [[0, 2, 2, 5]], rs, shape=[2, -1], tag="/rows"),
        _to_tensor(np.float32, [[1, 2], [3, 4], [5, 6]], [[0, 1, 3]], rs, tag="/inner"),
        _to_tensor(np.float32, [[1, 2], [3, 4], [5, 6]], [[0, 1, 3]], rs, default=[7, 8],
                   tag="/inner_default"),
        _to_tensor(np.int32, [1, 2, 3, 4, 5, 6], [[0, 2, 3], [0, 1, 1, 6]],
                   rs + rs, tag="/2level", tindex=np.int32),
        _to_tensor(np.int32, [1, 2, 3, 4, 5, 6], [[0, 2, 3], [0, 1, 1, 6]],
                   rs + rs, shape=[3, 1, 3], tag="/2level_cut"),
        _to_tensor(np.int64, [1, 2, 3, 4, 5], [4, [0, 0, 2, 2, 3]],
                   ["FIRST_DIM_SIZE", "VALUE_ROWIDS"], tag="/rowids"),
        _to_tensor(np.int64, [], [[0, 0, 0]], rs, tag="/empty"),
        _to_sparse(np.float32, [[0, 2, 2, 5]], [1, 2, 3, 4, 5]),
        _to_sparse(object, [[0, 1, 3]], ["a", "b", "c"]),
        _to_sparse(np.int64, [[0, 2, 3], [0, 1, 1, 6]], [1, 2, 3, 4, 5, 6]),
        _to_sparse(np.int32, [[0, 1, 3]], [[1, 2], [3, 4], [5, 6]], tag="/inner"),
    ]
    return out


_KEYS = {np.int32: [3, -7, 11, 0], np.int64: [2**40, -5, 9, 0],
         object: ["apple", "", "b", "Ünï"]}
_VALS = {np.int32: [1, 2, 3, 4], np.int64: [10, 20, -30, 2**41], np.float32: [0.5, -1, 2, 3],
         np.float64: [1e-3, 2, 3, 4], np.bool_: [True, False, True, True],
         object: ["x", "y", "", "zz"]}


def _dt_name(t):
    return "string" if t is object else np.dtype(t).name


def _table(ctor, kt, vt, value_shape=(), extra=None):
    """A table op of kind `ctor` and its handle."""
    tf = _tf()
    kw = dict(value_dtype=tf.as_dtype(vt) if vt is not object else tf.string)
    if "Dense" not in ctor:
        kw["key_dtype"] = tf.as_dtype(kt) if kt is not object else tf.string
    if "OfTensors" in ctor or "Dense" in ctor:
        kw["value_shape"] = value_shape
    kw.update(extra or {})
    return getattr(tf.raw_ops, ctor)(**kw)


def _values(vt, value_shape):
    v = np.array(_VALS[vt], vt)
    if value_shape:
        v = np.stack([v, v[::-1]], axis=1)
    return v


def _table_case(ctor, kt, vt, value_shape=(), remove=False, import_=False, error=None,
                insert_keys=None, tag=""):
    legacy = not ctor.endswith("V2") and not ctor.startswith("Anonymous")
    name = f"{ctor}/{_dt_name(kt)}->{_dt_name(vt)}{list(value_shape)}{tag}".replace(" ", "")
    find_ops = ["LookupTableInsert" if legacy else "LookupTableInsertV2",
                "LookupTableFind" if legacy else "LookupTableFindV2"]

    def build():
        tf = _tf()
        extra = {}
        if "Dense" in ctor:
            empty = {np.int32: -1, np.int64: -1, object: "<e>"}[kt]
            extra["empty_key"] = tf.constant(empty, tf.string if kt is object else kt)
            if not legacy:
                deleted = {np.int32: -2, np.int64: -2, object: "<d>"}[kt]
                extra["deleted_key"] = tf.constant(deleted, tf.string if kt is object else kt)
            extra["initial_num_buckets"] = 8
        h = _table(ctor, kt, vt, value_shape, extra)
        raw = tf.raw_ops
        key_values = np.array(_KEYS[kt], kt)
        if kt is object:
            keys, feeds = tf.constant(key_values, tf.string), {}
        else:
            keys = tf.compat.v1.placeholder(kt, (4,), name="keys")
            feeds = {keys: key_values}
        vals = tf.constant(_values(vt, value_shape))
        ins_keys = keys if insert_keys is None else tf.constant(insert_keys)
        if legacy:
            step = raw.LookupTableInsert(table_handle=h, keys=ins_keys, values=vals)
        elif import_:
            first = raw.LookupTableInsertV2(table_handle=h, keys=keys[:2], values=vals[:2])
            with tf.control_dependencies([first]):
                step = raw.LookupTableImportV2(table_handle=h, keys=keys[1:], values=vals[1:])
        else:
            step = raw.LookupTableInsertV2(table_handle=h, keys=ins_keys, values=vals)
        if remove:
            with tf.control_dependencies([step]):
                step = raw.LookupTableRemoveV2(table_handle=h, keys=keys[:2])
        default = tf.constant(_values(vt, value_shape)[-1])
        query = tf.concat([keys, keys[:1]], 0)
        with tf.control_dependencies([step]):
            if legacy:
                found = raw.LookupTableFind(table_handle=h, keys=query, default_value=default)
                size = raw.LookupTableSize(table_handle=h)
            else:
                found = raw.LookupTableFindV2(table_handle=h, keys=query, default_value=default)
                size = raw.LookupTableSizeV2(table_handle=h)
        fetches = [found, size]
        if kt is not object and not legacy and "Dense" not in ctor:
            with tf.control_dependencies([found, size]):
                ek, ev = raw.LookupTableExportV2(table_handle=h, Tkeys=kt,
                                                 Tvalues=tf.string if vt is object else vt)
            order = tf.argsort(ek)
            fetches += [tf.gather(ek, order), tf.gather(ev, order)]
        return fetches, feeds
    ops = [ctor] + find_ops + (["LookupTableRemoveV2"] if remove else [])
    if ctor == "MutableDenseHashTable":  # TensorFlow's kernel reads an input the op lacks
        error = "Unknown input name: deleted_key"
    return OpCase(name, ops, build, expect_error=error)


def _dense_export_import(value_shape=()):
    """A dense table's export (TensorFlow's layout: keys [n, 1]) imported into
    another: what its checkpoints do."""
    def build():
        tf = _tf()

        def table():
            return tf.raw_ops.MutableDenseHashTableV2(
                empty_key=tf.constant(-1, tf.int64), deleted_key=tf.constant(-2, tf.int64),
                value_dtype=tf.float32, value_shape=value_shape, initial_num_buckets=8)
        a, b = table(), table()
        keys = tf.compat.v1.placeholder(tf.int64, (3,), name="keys")
        vals = tf.reshape(tf.range(3 * max(1, int(np.prod(value_shape))), dtype=tf.float32),
                          (3,) + tuple(value_shape))
        ins = tf.raw_ops.LookupTableInsertV2(table_handle=a, keys=keys, values=vals)
        with tf.control_dependencies([ins]):
            ek, ev = tf.raw_ops.LookupTableExportV2(table_handle=a, Tkeys=tf.int64,
                                                    Tvalues=tf.float32)
        imp = tf.raw_ops.LookupTableImportV2(table_handle=b, keys=ek, values=ev)
        default = tf.constant(-7.0, shape=value_shape)
        with tf.control_dependencies([imp]):
            found = tf.raw_ops.LookupTableFindV2(table_handle=b,
                                                 keys=tf.constant([5, 9, 3, 4], tf.int64),
                                                 default_value=default)
            size = tf.raw_ops.LookupTableSizeV2(table_handle=b)
        return [found, size, tf.shape(ek)[1:], tf.shape(ev)[1:]], {
            keys: np.array([5, 9, 4], np.int64)}
    return OpCase(f"MutableDenseHashTableV2/export_import{list(value_shape)}",
                  ["MutableDenseHashTableV2", "LookupTableExportV2", "LookupTableImportV2"],
                  build)


def _table_cases():
    out = [_dense_export_import(), _dense_export_import((2,))]
    pairs = [(object, np.int64), (object, np.int32), (object, np.float32), (object, np.float64),
             (object, np.bool_), (np.int64, object), (np.int64, np.int64),
             (np.int64, np.float32), (np.int64, np.float64), (np.int32, np.int32),
             (np.int32, np.float32), (np.int32, np.float64)]
    for kt, vt in pairs:
        out.append(_table_case("MutableHashTableV2", kt, vt))
    for kt, vt in ((object, np.int64), (np.int64, np.float32), (np.int32, np.float64)):
        out += [_table_case("MutableHashTableV2", kt, vt, remove=True, tag="/remove"),
                _table_case("MutableHashTableV2", kt, vt, import_=True, tag="/import"),
                _table_case("MutableHashTableOfTensorsV2", kt, vt, (2,)),
                _table_case("MutableDenseHashTableV2", kt, vt),
                _table_case("MutableDenseHashTableV2", kt, vt, (2,)),
                _table_case("MutableDenseHashTableV2", kt, vt, remove=True, tag="/remove"),
                _table_case("AnonymousMutableHashTable", kt, vt),
                _table_case("AnonymousMutableHashTableOfTensors", kt, vt, (2,)),
                _table_case("AnonymousMutableDenseHashTable", kt, vt),
                _table_case("MutableHashTable", kt, vt),
                _table_case("MutableHashTableOfTensors", kt, vt, (2,)),
                _table_case("MutableDenseHashTable", kt, vt)]
    out += [_table_case("MutableHashTableOfTensorsV2", np.int64, object, (2,)),
            _table_case("MutableHashTableOfTensorsV2", object, np.bool_, (2,)),
            _table_case("MutableDenseHashTableV2", np.int64, np.bool_),
            _table_case("MutableDenseHashTableV2", object, np.int64, error="Using the empty_key "
                        "as a table key is not allowed", insert_keys=["a", "<e>", "b", "c"],
                        tag="/empty_key"),
            _table_case("MutableDenseHashTableV2", np.int64, np.int64, error="Using the "
                        "deleted_key as a table key is not allowed",
                        insert_keys=np.array([1, 2, -2, 3], np.int64), tag="/deleted_key"),
            _table_case("MutableHashTableV2", np.int64, np.int64, error="Expected shape \\[3\\] "
                        "for value, got \\[4\\]", insert_keys=np.array([1, 2, 3], np.int64),
                        tag="/bad_shape")]
    return out


def cases():
    yield from _hash_cases()
    for dtype, shape in ((object, (8,)), (object, (2, 3)), (object, (3, 1)), (object, (0, 3)),
                         (np.float32, (2, 3)), (np.int64, (4,)), (np.uint8, (2, 5)),
                         (np.bool_, (3, 2)), (np.float64, (0,)), (np.int8, (3, 0))):
        yield _fingerprint(dtype, shape)
    yield _fingerprint(object, (2,), "md5", "Unsupported fingerprint method: md5")
    yield _fingerprint(np.int32, (), error="`data` should have at least one dimension")
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                  np.uint64):
        yield _tensor_to_hash(dtype, 1000)
    yield _tensor_to_hash(np.int64, 2**40)
    yield from _case_cases()
    yield from _split_cases()
    yield from _bincount_cases()
    yield from _ragged_cases()
    yield from _table_cases()
