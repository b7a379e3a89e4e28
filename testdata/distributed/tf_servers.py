"""Hosts tf.distribute.Servers for tests, in one process that cluster.py's
TfServers starts (TensorFlow cannot stop a Server: the process is the unit
that ends). Run by a Python that imports TensorFlow.

Protocol (one JSON object a line on stdin, one line of answer on stdout):
  {"cluster": {"worker": ["127.0.0.1:P0", "127.0.0.1:0"]}, "job": "worker",
   "task": 1, "config": "<ConfigProto, text format>"}
    -> "listening on 127.0.0.1:PORT" (the port it bound: 0 in the spec picks
       a free one) or "error: ...".
The process exits when stdin closes (its parent ended or closed it).
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")


def main():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    from google.protobuf import text_format  # pylint: disable=import-outside-toplevel
    servers = []  # kept alive until the process ends
    print("ready", flush=True)
    for line in sys.stdin:
        try:
            req = json.loads(line)
            config = text_format.Parse(req.get("config", ""), tf.compat.v1.ConfigProto())
            server = tf.distribute.Server(
                tf.train.ClusterSpec(req["cluster"]), job_name=req.get("job", "worker"),
                task_index=req["task"], protocol="grpc", config=config, start=True)
            servers.append(server)
            port = server.target.rsplit(":", 1)[1]
            print(f"listening on 127.0.0.1:{port}", flush=True)
        except Exception as e:  # pylint: disable=broad-except
            print("error: " + " ".join(str(e).split()), flush=True)
    os._exit(0)  # pylint: disable=protected-access  # no Server teardown in TF


if __name__ == "__main__":
    main()
