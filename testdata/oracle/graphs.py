"""Small text GraphDefs built in Python for the differential test.

    g = Graph()
    x = g.placeholder("x", np.zeros((2, 3), np.float32))
    g.op("y", "Softmax", [x], T=Type("float32"))
    text = g.text()

Attribute values: Type("int64"), Shape([2, -1]), Func("f"), str (-> s:),
bool (-> b:), int (-> i:), float (-> f:), np.ndarray (-> tensor), and lists of
int, float, str or Type (-> list { ... }).
"""
import math

import numpy as np

DTYPES = {
    "float32": "DT_FLOAT",
    "float64": "DT_DOUBLE",
    "float16": "DT_HALF",
    "int32": "DT_INT32",
    "int64": "DT_INT64",
    "int16": "DT_INT16",
    "int8": "DT_INT8",
    "uint8": "DT_UINT8",
    "uint16": "DT_UINT16",
    "bool": "DT_BOOL",
}


class Type:
    def __init__(self, dtype):
        self.name = DTYPES[np.dtype(dtype).name]


class Shape:
    def __init__(self, dims):
        self.dims = None if dims is None else list(dims)


class Func:
    def __init__(self, name):
        self.name = name


def _float_text(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def _shape_text(dims):
    if dims is None:
        return "unknown_rank: true"
    return " ".join(f"dim {{ size: {int(d)} }}" for d in dims)


def tensor_text(array):
    """A TensorProto in text form, values in the dtype's *_val field."""
    a = np.asarray(array)
    kind = a.dtype.name
    flat = a.ravel()
    if kind in ("float32", "float16"):
        field = "float_val" if kind == "float32" else "half_val"
        vals = [_float_text(v) for v in flat] if kind == "float32" else [
            str(int(v)) for v in flat.view(np.uint16)]
    elif kind == "float64":
        field, vals = "double_val", [_float_text(v) for v in flat]
    elif kind == "int64":
        field, vals = "int64_val", [str(int(v)) for v in flat]
    elif kind == "bool":
        field, vals = "bool_val", ["true" if v else "false" for v in flat]
    else:
        field, vals = "int_val", [str(int(v)) for v in flat]
    values = " ".join(f"{field}: {v}" for v in vals)
    return (f"tensor {{ dtype: {DTYPES[kind]} tensor_shape {{ "
            f"{_shape_text(a.shape)} }} {values} }}")


def _list_text(values):
    if not values:
        return "list { }"
    first = values[0]
    if isinstance(first, Type):
        items = " ".join(f"type: {v.name}" for v in values)
    elif isinstance(first, str):
        items = " ".join(f's: "{v}"' for v in values)
    elif isinstance(first, bool):
        items = " ".join(f"b: {str(v).lower()}" for v in values)
    elif isinstance(first, (int, np.integer)):
        items = " ".join(f"i: {int(v)}" for v in values)
    elif isinstance(first, Shape):
        items = " ".join(f"shape {{ {_shape_text(v.dims)} }}" for v in values)
    else:
        items = " ".join(f"f: {_float_text(v)}" for v in values)
    return f"list {{ {items} }}"


def attr_text(value):
    if isinstance(value, Type):
        return f"type: {value.name}"
    if isinstance(value, Shape):
        return f"shape {{ {_shape_text(value.dims)} }}"
    if isinstance(value, Func):
        return f'func {{ name: "{value.name}" }}'
    if isinstance(value, np.ndarray):
        return tensor_text(value)
    if isinstance(value, bool):
        return f"b: {str(value).lower()}"
    if isinstance(value, (int, np.integer)):
        return f"i: {int(value)}"
    if isinstance(value, float):
        return f"f: {_float_text(value)}"
    if isinstance(value, str):
        return f's: "{value}"'
    if isinstance(value, (list, tuple)):
        return _list_text(list(value))
    raise TypeError(f"no attr form for {value!r}")


class Graph:
    def __init__(self):
        self.nodes = []
        self.feeds = {}

    def op(self, name, op, inputs=(), device="", **attrs):
        self.nodes.append((name, op, list(inputs), device, attrs))
        return name

    def placeholder(self, name, value, shape="exact"):
        """A Placeholder fed with `value` (recorded in self.feeds)."""
        value = np.asarray(value)
        self.feeds[name] = value
        dims = list(value.shape) if shape == "exact" else shape
        return self.op(name, "Placeholder", dtype=Type(value.dtype),
                       shape=Shape(dims))

    def const(self, name, value, dtype=None, inputs=()):
        value = np.asarray(value, dtype=dtype)
        return self.op(name, "Const", inputs, dtype=Type(value.dtype),
                       value=value)

    def text(self):
        out = []
        for name, op, inputs, device, attrs in self.nodes:
            lines = [f'  name: "{name}"', f'  op: "{op}"']
            lines += [f'  input: "{i}"' for i in inputs]
            if device:
                lines.append(f'  device: "{device}"')
            for key in sorted(attrs):
                lines.append(
                    f'  attr {{ key: "{key}" value {{ {attr_text(attrs[key])} }} }}')
            out.append("node {\n" + "\n".join(lines) + "\n}\n")
        out.append("versions { producer: 1395 }\n")
        return "".join(out)
