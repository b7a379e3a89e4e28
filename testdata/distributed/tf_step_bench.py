"""A TensorFlow 1.x client timing steps against a master, for bench.py: run
by a Python that imports TensorFlow.

    PYTHON tf_step_bench.py grpc://HOST:PORT GRAPH.pbtxt FEED=VALUE FETCH REPEAT WARMUP

Feeds the float32 scalar VALUE to FEED, fetches FETCH, and prints
"median X us" of REPEAT timed steps after WARMUP untimed ones.
"""
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")


def main():
    import numpy as np  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    from google.protobuf import text_format  # pylint: disable=import-outside-toplevel
    target, graph_path, feed, fetch, repeat, warmup = sys.argv[1:7]
    feed_name, value = feed.split("=")
    tf.compat.v1.disable_eager_execution()
    graph_def = tf.compat.v1.GraphDef()
    with open(graph_path) as f:
        text_format.Parse(f.read(), graph_def)
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    feeds = {f"{feed_name}:0": np.float32(value)}
    with tf.compat.v1.Session(target, graph=graph) as sess:
        for _ in range(int(warmup)):
            sess.run(f"{fetch}:0", feeds)
        times = []
        for _ in range(int(repeat)):
            start = time.perf_counter()
            sess.run(f"{fetch}:0", feeds)
            times.append(time.perf_counter() - start)
    times.sort()
    print(f"median {times[len(times) // 2] * 1e6:.1f} us", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
