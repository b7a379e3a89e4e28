"""TensorFlow's side of the TF oracle: load a GraphDef as TensorFlow reads it,
run it in a tf.compat.v1.Session, and collect the partition graphs.

Imported only under the TensorFlow venv (see tf_oracle.py). The environment
is set before TensorFlow is imported:
- TF_CPP_MIN_LOG_LEVEL=2: no start-up chatter;
- TF_ENABLE_ONEDNN_OPTS=0: TensorFlow's own (Eigen) CPU kernels and no
  oneDNN graph rewrite (MklLayoutRewritePass would rename ops such as Conv2D
  to _MklNativeConv2D in the partition graphs; dfg reimplements stock TF).
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from tensorflow.python.client import pywrap_tf_session as c_api  # noqa: E402
from tensorflow.core.protobuf import config_pb2, saved_model_pb2  # noqa: E402

tf1 = tf.compat.v1
LOCAL_CPU = "/job:localhost/replica:0/task:0/device:CPU:"


def load_graph_def(path=None, text=None):
    """The GraphDef of a text/binary GraphDef, a SavedModel or a MetaGraphDef,
    parsed by TensorFlow's own protobuf classes (not through dfg)."""
    if text is not None:
        return text_format.Parse(text, tf1.GraphDef())
    with open(path, "rb") as f:
        data = f.read()
    try:
        return text_format.Parse(data.decode("utf-8"), tf1.GraphDef())
    except (UnicodeDecodeError, text_format.ParseError):
        pass
    if os.path.basename(path).startswith("saved_model") or "saved_model" in path:
        sm = saved_model_pb2.SavedModel()
        try:
            sm.ParseFromString(data)
            if sm.meta_graphs and sm.meta_graphs[0].HasField("graph_def"):
                return sm.meta_graphs[0].graph_def
        except Exception:  # pylint: disable=broad-except
            pass
    if path.endswith(".meta"):
        mg = tf1.MetaGraphDef()
        mg.ParseFromString(data)
        return mg.graph_def
    gd = tf1.GraphDef()
    gd.ParseFromString(data)
    return gd


def tensor_name(name):
    """A Python-client tensor name: `x` -> `x:0`."""
    return name if ":" in name else name + ":0"


def session_config(cpus=1, threads=1, soft=True, plain=False):
    """cpus CPU devices; `plain` turns off every graph rewrite that dfg does
    not do (for comparing partition graphs): Grappler, the graph optimizer's
    constant folding/CSE/inlining (L0), the lowering of functional If/While
    to Switch/Merge, and placing the full graph before pruning."""
    config = tf1.ConfigProto(device_count={"CPU": cpus, "GPU": 0},
                             intra_op_parallelism_threads=threads,
                             inter_op_parallelism_threads=threads,
                             allow_soft_placement=soft)
    if plain:
        go = config.graph_options
        go.optimizer_options.opt_level = tf1.OptimizerOptions.L0
        go.optimizer_options.do_common_subexpression_elimination = False
        go.optimizer_options.do_constant_folding = False
        go.optimizer_options.do_function_inlining = False
        go.optimizer_options.global_jit_level = tf1.OptimizerOptions.OFF
        go.place_pruned_graph = True
        go.rewrite_options.disable_meta_optimizer = True
        config.experimental.disable_functional_ops_lowering = True
    return config


class Run:
    """The outcome of one Session.run: values (dict fetch -> ndarray) or an
    error (type name, message); partition graphs when asked for."""

    def __init__(self, values=None, error=None, partitions=None):
        self.values = values
        self.error = error
        self.partitions = partitions

    @property
    def message(self):
        return f"{self.error[0]}: {self.error[1]}" if self.error else ""


def run_graph(graph_def, feeds, fetches, targets=(), cpus=1, threads=1,
              plain=True, partitions=False, soft=True, init_targets=(), target="",
              timeout_ms=0):
    """Imports graph_def (name scope "") into a new graph and runs one step
    through DirectSession::Run, as Session.run does but without the Python
    client's own checks and casts (a fed value's shape against the
    placeholder's, dtype conversion): feeds {tensor: ndarray}, fetches and
    targets by name; init_targets are run first, in their own step of the
    same session (a frozen graph's init_all_tables, as a user runs it before
    the lookups). A name Python cannot resolve (`input:1` of a one-output
    node) goes to run_callable, which lets TensorFlow itself say what is
    wrong. Errors come back in Run.error, never raised. `target`: a master
    (grpc://HOST:PORT) instead of the local DirectSession; `timeout_ms`:
    RunOptions.timeout_in_ms (0: none)."""
    graph, failed = import_graph(graph_def)
    if failed:
        return failed
    try:
        feed_list = {graph.get_tensor_by_name(tensor_name(k))._as_tf_output(): np.asarray(v)
                     for k, v in feeds.items()}  # pylint: disable=protected-access
        fetch_list = [graph.get_tensor_by_name(tensor_name(f))._as_tf_output()
                      for f in fetches]  # pylint: disable=protected-access
        target_list = [graph.get_operation_by_name(t)._c_op  # pylint: disable=protected-access
                       for t in targets]
    except (KeyError, ValueError):
        return run_callable(graph_def, feeds, fetches, targets, cpus, soft, plain, threads,
                            target=target, timeout_ms=timeout_ms)
    config = session_config(cpus, threads, soft, plain)
    options = tf1.RunOptions(output_partition_graphs=partitions, timeout_in_ms=timeout_ms)
    options_buf = c_api.TF_NewBufferFromString(options.SerializeToString())
    metadata_buf = c_api.TF_NewBuffer()
    try:
        with tf1.Session(target, graph=graph, config=config) as sess:
            sess._extend_graph()  # pylint: disable=protected-access
            if init_targets:
                sess.run([graph.get_operation_by_name(t) for t in init_targets])
            out = sess._call_tf_sessionrun(  # pylint: disable=protected-access
                options_buf, feed_list, fetch_list, target_list, metadata_buf)
        metadata = tf1.RunMetadata()
        metadata.ParseFromString(bytes(c_api.TF_GetBuffer(metadata_buf)))
    except tf.errors.OpError as e:
        return Run(error=(type(e).__name__, _text(e)))
    finally:
        c_api.TF_DeleteBuffer(options_buf)
        c_api.TF_DeleteBuffer(metadata_buf)
    values = {f: np.asarray(v) for f, v in zip(fetches, out)}
    return Run(values=values, partitions=list(metadata.partition_graphs))


def run_session(graph_def, feeds, fetches, target=""):
    """Plain Session.run, the Python client's checks included."""
    graph, failed = import_graph(graph_def)
    if failed:
        return failed
    try:
        with tf1.Session(target, graph=graph, config=session_config()) as sess:
            out = sess.run(list(fetches), feed_dict=dict(feeds))
    except tf.errors.OpError as e:
        return Run(error=(type(e).__name__, _text(e)))
    except (ValueError, KeyError, TypeError) as e:
        return Run(error=(type(e).__name__, _text(e)))
    return Run(values=dict(zip(fetches, [np.asarray(v) for v in out])))


def import_graph(graph_def):
    """(tf.Graph, None) or (None, Run with the import error).

    The nodes keep the devices the GraphDef gives them, as a C++ client's
    Session::Create sees them: Python's import_graph_def
    (importer._ProcessNewOps) gives a node with a `_class` colocation the
    device of the first op of its group that has one (and clears it when none
    has), a Python-client rewrite the runtime's placer never sees."""
    graph = tf.Graph()
    try:
        with graph.as_default():
            tf.graph_util.import_graph_def(graph_def, name="")
    except (ValueError, tf.errors.OpError, TypeError, KeyError) as e:
        return None, Run(error=("import", _text(e)))
    for node in graph_def.node:
        op = graph.get_operation_by_name(node.name)
        if op.device != node.device:
            op._set_device(node.device)  # pylint: disable=protected-access
    return graph, None


def run_callable(graph_def, feeds, fetches, targets=(), cpus=1, soft=True,
                 plain=True, threads=1, target="", timeout_ms=0):
    """Runs one step through Session._make_callable_from_options: feeds,
    fetches and targets go to DirectSession::MakeCallable as *strings*, as a
    C++ client names them (the Python client's session.run resolves names in
    Python first and never sends an unknown or odd name to TensorFlow).
    `plain`: no Grappler and no graph optimizer (session_config); `target`:
    a master (grpc://HOST:PORT); `timeout_ms`: RunOptions.timeout_in_ms."""
    graph, failed = import_graph(graph_def)
    if failed:
        return failed
    config = session_config(cpus, threads, soft, plain)
    options = config_pb2.CallableOptions(
        feed=list(feeds), fetch=list(fetches), target=list(targets),
        run_options=config_pb2.RunOptions(timeout_in_ms=timeout_ms))
    try:
        with tf1.Session(target, graph=graph, config=config) as sess:
            fn = sess._make_callable_from_options(options)  # pylint: disable=protected-access
            out = fn(*[np.asarray(v) for v in feeds.values()])
    except tf.errors.OpError as e:
        return Run(error=(type(e).__name__, _text(e)))
    return Run(values=dict(zip(fetches, [np.asarray(v) for v in out])))


def _text(e):
    msg = e.message if isinstance(e, tf.errors.OpError) else str(e)
    return msg.strip()
