"""The cluster section's own graphs: what TensorFlow's distributed runtime
specifically exercises (control flow whose frames and dead tensors cross
tasks, explicit /job:worker/task:N devices, strings and int64 on the wire, a
fetch made on the remote task), and its error cases. Built with TensorFlow's
own v1 graph API (Switch/Merge/Enter/Exit control flow, as TF 1.x wrote it);
imported only under the TensorFlow venv.
"""
import threading

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import control_flow_util

tf1 = tf.compat.v1
T0, T1 = "/job:worker/task:0", "/job:worker/task:1"
_LOCK = threading.Lock()


def _v1_graph(build):
    """graph_def of build() in a new tf.Graph with v1 control flow (Switch,
    Merge, Enter, Exit: the frames and dead tensors that cross tasks). The
    flag is process-wide: flipped under a lock, for the build only."""
    with _LOCK:
        old = control_flow_util.ENABLE_CONTROL_FLOW_V2
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
        try:
            g = tf.Graph()
            with g.as_default():
                build()
            return g.as_graph_def()
        finally:
            control_flow_util.ENABLE_CONTROL_FLOW_V2 = old


def _while_across():
    """A while loop whose body multiplies on task 1 and counts on task 0,
    with the loop's predicate on task 1: Enter/Exit/NextIteration frames on
    both tasks, the loop's control flow sent between them every iteration."""
    n = tf1.placeholder(tf.int32, [], name="n")
    a0 = tf1.placeholder(tf.float32, [2], name="a0")

    def cond(i, a):
        with tf.device(T1):
            return tf.less(i, n)

    def body(i, a):
        with tf.device(T1):
            a2 = a * 2.0 + 1.0
        with tf.device(T0):
            i2 = i + 1
        return i2, a2
    with tf.device(T0):
        i, a = tf1.while_loop(cond, body, [tf.constant(0), a0])
    tf.identity(i, name="count")
    with tf.device(T1):
        tf.identity(a, name="value")


def _cond_across():
    """tf.cond whose predicate is on task 0, its true branch on task 1 and
    its false branch on task 0: the branch not taken sends dead tensors."""
    p = tf1.placeholder(tf.bool, [], name="p")
    x = tf1.placeholder(tf.float32, [3], name="x")

    def yes():
        with tf.device(T1):
            return tf.square(x) + 1.0

    def no():
        with tf.device(T0):
            return x - 10.0
    with tf.device(T0):
        r = tf1.cond(p, yes, no)
    with tf.device(T1):
        tf.identity(r * 3.0, name="out")


def _explicit_devices():
    """Devices as clients write them: partial (/job:worker/task:1), full,
    legacy (/cpu:0) and none (placed on the master's task)."""
    x = tf1.placeholder(tf.float32, [2, 2], name="x")
    with tf.device("/job:worker/task:1"):
        a = tf.matmul(x, x, name="a")
    with tf.device("/job:worker/replica:0/task:0/device:CPU:0"):
        b = tf.add(a, 1.0, name="b")
    with tf.device("/job:worker/task:1/cpu:0"):
        c = tf.reduce_sum(b, axis=1, name="c")
    tf.negative(c, name="d")  # no device


def _string_int64():
    """A string and an int64 tensor crossing tasks both ways (task 1 ->
    task 0 -> task 1)."""
    s = tf1.placeholder(tf.string, [3], name="s")
    k = tf1.placeholder(tf.int64, [4], name="k")
    with tf.device(T1):
        joined = tf.strings.join([s, "-t1"], name="joined")
        big = tf.math.cumsum(k * 3_000_000_000, name="big")
    with tf.device(T0):
        back = tf.strings.join([joined, "t0"], separator="|", name="back")
        big7 = tf.add(big, tf.constant(7, tf.int64), name="big7")
    with tf.device(T1):
        tf.strings.join([back, s], separator="+", name="both")
        tf.negative(big7, name="neg")


def _remote_fetch():
    """A feed into task 1 and fetches of tensors made on task 1 only."""
    x = tf1.placeholder(tf.float32, [4], name="x")
    with tf.device(T1):
        x1 = tf.identity(x, name="x1")
        tf.square(x1, name="sq")
        tf.argmax(x1, name="where")


def _errors_graph():
    """For the error cases: x (with a shape) reduced on task 0 beside a
    constant of task 1, so that an error about x is task 0's alone (which
    task reports an error first is otherwise a race, in TensorFlow as in
    dfg); z (no shape) fed on task 0 and reduced on task 1."""
    with tf.device(T0):
        x = tf1.placeholder(tf.float32, [None, 4], name="x")
        z = tf1.placeholder(tf.float32, None, name="z")
        tf.reduce_sum(x * 2.0, axis=1, name="y")
    with tf.device(T1):
        tf.constant([1.0, 2.0], name="c")
        tf.reduce_sum(z, axis=1, name="w")


_A0 = np.float32([0.5, -1.25])
_X3 = np.float32([1.5, -2.0, 3.25])
_X4 = np.float32([0.25, -3.0, 7.5, 1.0])
_M = np.float32([[1, 2], [3, 4]])
_S = np.array([b"a", b"", "\u00e9t\u00e9".encode()])  # bytes (|S5): no pickle
_K = np.int64([1, -2, 3, 2 ** 40])

# name -> (builder, feeds, fetches)
CASES = {
    "while_across": (_while_across, {"n": np.int32(5), "a0": _A0}, ["count", "value"]),
    "cond_across_true": (_cond_across, {"p": np.bool_(True), "x": _X3}, ["out"]),
    "cond_across_false": (_cond_across, {"p": np.bool_(False), "x": _X3}, ["out"]),
    "explicit_devices": (_explicit_devices, {"x": _M}, ["a", "b", "c", "d"]),
    "string_int64": (_string_int64, {"s": _S, "k": _K},
                     ["joined", "big", "back", "big7", "both", "neg"]),
    "remote_fetch": (_remote_fetch, {"x": _X4}, ["sq", "where", "x1"]),
}

# Errors: name -> (feeds, fetches, how[, targets]) on _errors_graph. TensorFlow's
# distributed runtime (its Python client on a TensorFlow cluster) says what
# the text and the status code are. how: "callable" names feeds and fetches
# as strings (a C++ client's MakeCallable/RunCallable), "session" is the
# Python client's session.run, whose own checks (a fed value's shape) are
# what a user of TensorFlow sees first.
_X24 = np.ones((2, 4), np.float32)
ERRORS = {
    "wrong_shape": ({"x:0": np.ones(3, np.float32)}, ["y:0", "c:0"], "session"),
    # w as a target: the error is task 1's alone (a fetched w would reach
    # task 0 too, which then reports it as well, first or second).
    "remote_kernel_error": ({"z": np.ones(3, np.float32)}, [], "callable", ["w"]),
    "missing_node": ({"x": _X24}, ["nosuch"], "callable"),
    "missing_output": ({"x": _X24}, ["y:3"], "callable"),
    "missing_feed": ({}, ["y", "c"], "callable"),
    "feed_unknown": ({"x": _X24, "nosuch": np.float32(1)}, ["y"], "callable"),
}

_BUILT = {}


def graph(name):
    """The GraphDef of a case (built once)."""
    with _LOCK:
        built = _BUILT.get(name)
    if built is None:
        builder = CASES[name][0] if name in CASES else _errors_graph
        built = _v1_graph(builder)
        with _LOCK:
            _BUILT[name] = built
    return built
