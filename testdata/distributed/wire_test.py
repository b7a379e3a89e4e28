#!/usr/bin/python3
"""Wire-level tests of `dfg server` with requests built from the proto
definitions alone (lib/proto/*.proto compiled with protoc --python_out),
called with Debian's python3-grpcio on TensorFlow's method paths:
  - as a TensorFlow 1.x client of the MasterService,
  - as a TensorFlow master driving two WorkerServices (RegisterGraph with
    default attrs stripped, RunGraph with client-terminated feeds and
    fetches, RecvTensor between the workers and from this test),
  - bad requests: unknown handles, bytes that do not parse.

    /usr/bin/python3 testdata/distributed/wire_test.py --dfg build/dfg
"""
import glob
import os
import random
import subprocess
import sys
import tempfile
import threading

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from cluster import Cluster, find_dfg, skip  # noqa: E402

try:
    import grpc
except ImportError:
    skip("python3-grpcio is not installed", "DFG_REQUIRE_DEPS")

FAILURES = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what + ("" if cond else f": {detail}"))
    if not cond:
        FAILURES.append(what)


def compile_protos(out):
    protos = sorted(glob.glob(os.path.join(SRC, "lib", "proto", "*.proto")))
    subprocess.run(["protoc", f"--proto_path={SRC}", f"--python_out={out}"]
                   + protos, check=True)
    sys.path.insert(0, out)


class Stub:
    """Unary calls on /tensorflow.<Service>/<Method>."""

    def __init__(self, channel, service, pb):
        self.channel, self.service, self.pb = channel, service, pb

    def __call__(self, method, request, timeout=10):
        response_type = getattr(self.pb, method + "Response")
        call = self.channel.unary_unary(
            f"/tensorflow.{self.service}/{method}",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_type.FromString)
        return call(request, timeout=timeout)

    def raw(self, method, data, timeout=10):
        call = self.channel.unary_unary(f"/tensorflow.{self.service}/{method}")
        return call(data, timeout=timeout)


def error_code(fn):
    try:
        fn()
    except grpc.RpcError as e:
        return e.code(), e.details()
    return grpc.StatusCode.OK, ""


def main():
    dfg = find_dfg(sys.argv)
    with tempfile.TemporaryDirectory() as tmp:
        compile_protos(tmp)
        global pb
        from lib.proto import (attr_value_pb2, config_pb2, graph_pb2,  # noqa
                               master_pb2, tensor_pb2, types_pb2, worker_pb2)
        pb = type("pb", (), dict(attr=attr_value_pb2, config=config_pb2,
                                 graph=graph_pb2,
                                 master=master_pb2, tensor=tensor_pb2,
                                 types=types_pb2, worker=worker_pb2))
        with Cluster(dfg, 2) as c:
            channels = [grpc.insecure_channel(c.address(i)) for i in range(2)]
            master = Stub(channels[0], "MasterService", master_pb2)
            workers = [Stub(ch, "WorkerService", worker_pb2) for ch in channels]
            as_client(master)
            as_master(workers)
            bad_requests(master, workers)
            restarted_worker(c, master, channels)
            for ch in channels:
                ch.close()
    print(f"{len(FAILURES)} failed")
    return 1 if FAILURES else 0


# --- building messages -------------------------------------------------------

def tensor(values, dtype="DT_FLOAT", shape=None):
    t = pb.tensor.TensorProto()
    t.dtype = getattr(pb.types, dtype)
    shape = [len(values)] if shape is None else shape
    for d in shape:
        t.tensor_shape.dim.add().size = d
    field = {"DT_FLOAT": "float_val", "DT_INT32": "int_val", "DT_BOOL": "bool_val"}[dtype]
    getattr(t, field).extend(values)
    return t


def floats(t):
    import struct
    if t.tensor_content:
        return list(struct.unpack(f"<{len(t.tensor_content) // 4}f", t.tensor_content))
    return list(t.float_val)


def node(g, name, op, inputs=(), device="", **attrs):
    n = g.node.add()
    n.name, n.op, n.device = name, op, device
    n.input.extend(inputs)
    for k, v in attrs.items():
        a = n.attr[k]
        if isinstance(v, bool):
            a.b = v
        elif isinstance(v, int):
            a.i = v - (1 << 64) if v >= (1 << 63) else v  # int64 attr
        elif isinstance(v, str) and v.startswith("DT_"):
            a.type = getattr(pb.types, v)
        elif isinstance(v, str):
            a.s = v.encode()
        else:
            a.tensor.CopyFrom(v)
    return n


TASK = "/job:worker/replica:0/task:{}/device:CPU:0"


def key(src, inc, dst, name):
    return f"{src};{inc:016x};{dst};{name};0:0"


# --- TensorFlow client -> dfg master -------------------------------------------

def as_client(master):
    g = pb.graph.GraphDef()
    node(g, "x", "Placeholder", device="/job:worker/task:1", dtype="DT_FLOAT")
    node(g, "two", "Const", dtype="DT_FLOAT", value=tensor([2.0], shape=[]))
    node(g, "y", "Mul", ["x", "two"], device="/job:worker/task:1", T="DT_FLOAT")
    req = pb.master.CreateSessionRequest(graph_def=g)
    req.config.allow_soft_placement = True
    created = master("CreateSession", req)
    handle = created.session_handle
    check(handle != "" and created.graph_version == 0, "CreateSession gives a handle")

    run = pb.master.RunStepRequest(session_handle=handle, fetch=["y:0"])
    run.feed.add(name="x:0", tensor=tensor([1.0, 2.0, 3.0]))
    out = master("RunStep", run, timeout=30)
    check([t.name for t in out.tensor] == ["y:0"] and floats(out.tensor[0].tensor) == [2, 4, 6],
          "RunStep feeds x on task 1 and fetches y")

    ext = pb.graph.GraphDef()
    node(ext, "z", "AddV2", ["y", "two"], T="DT_FLOAT")
    extended = master("ExtendSession", pb.master.ExtendSessionRequest(
        session_handle=handle, graph_def=ext, current_graph_version=0))
    check(extended.new_graph_version == 1, "ExtendSession advances the version")
    code, _ = error_code(lambda: master("ExtendSession", pb.master.ExtendSessionRequest(
        session_handle=handle, graph_def=pb.graph.GraphDef(), current_graph_version=0)))
    check(code == grpc.StatusCode.FAILED_PRECONDITION, "a stale graph version is refused")
    run.ClearField("fetch")
    run.fetch.extend(["z:0", "y:0"])
    out = master("RunStep", run, timeout=30)
    by_name = {t.name: floats(t.tensor) for t in out.tensor}
    check(by_name == {"z:0": [4, 6, 8], "y:0": [2, 4, 6]}, "RunStep after ExtendSession")

    mk = pb.master.MakeCallableRequest(session_handle=handle)
    mk.options.feed.append("x:0")
    mk.options.fetch.append("z:0")
    callable_handle = master("MakeCallable", mk).handle
    rc = pb.master.RunCallableRequest(session_handle=handle, handle=callable_handle)
    rc.feed.append(tensor([10.0]))
    got = master("RunCallable", rc, timeout=30)
    check([floats(t) for t in got.fetch] == [[22.0]], "RunCallable")
    master("ReleaseCallable", pb.master.ReleaseCallableRequest(
        session_handle=handle, handle=callable_handle))
    code, _ = error_code(lambda: master("RunCallable", rc))
    check(code == grpc.StatusCode.INVALID_ARGUMENT, "a released callable is refused")

    bad = pb.master.RunStepRequest(session_handle=handle, fetch=["nope:0"],
                                   store_errors_in_response_body=True)
    out = master("RunStep", bad)
    check(out.status_code == 5 and "nope" in out.status_error_message,
          "store_errors_in_response_body puts NOT_FOUND in the body")

    devices = master("ListDevices", pb.master.ListDevicesRequest())
    check([d.name for d in devices.local_device] == [TASK.format(0)] and
          [d.name for d in devices.remote_device] == [TASK.format(1)],
          "ListDevices: local task 0, remote task 1")

    master("CloseSession", pb.master.CloseSessionRequest(session_handle=handle))
    code, _ = error_code(lambda: master("RunStep", run))
    check(code == grpc.StatusCode.ABORTED, "RunStep on a closed session is ABORTED")
    master("Reset", pb.master.ResetRequest())
    check(True, "Reset")


# --- TensorFlow master -> dfg workers -------------------------------------------

def as_master(workers):
    status = [w("GetStatus", pb.worker.GetStatusRequest()) for w in workers]
    inc = [s.device_attributes[0].incarnation for s in status]
    check([s.device_attributes[0].name for s in status] == [TASK.format(0), TASK.format(1)]
          and all(inc), "GetStatus reports each task's CPU and incarnation")
    w0, w1 = TASK.format(0), TASK.format(1)
    session = "wire-session"
    for i, w in enumerate(workers):
        req = pb.worker.CreateWorkerSessionRequest(session_handle=session)
        req.server_def.job_name, req.server_def.task_index = "worker", i
        w("CreateWorkerSession", req)

    # Task 1 squares a constant and sends it to task 0 (defaults stripped:
    # no client_terminated on the _Send).
    g1 = pb.graph.GraphDef()
    node(g1, "c", "Const", device=w1, dtype="DT_FLOAT", value=tensor([1.0, 2.0, 3.0]))
    node(g1, "sq", "Square", ["c"], device=w1, T="DT_FLOAT")
    node(g1, "sq/_0", "_Send", ["sq"], device=w1, T="DT_FLOAT", tensor_name="edge_1_sq",
         send_device=w1, send_device_incarnation=inc[1], recv_device=w0)
    # Task 0 adds the fed 'a' and returns the sum to the client.
    g0 = pb.graph.GraphDef()
    node(g0, "sq/_1", "_Recv", device=w0, tensor_type="DT_FLOAT", tensor_name="edge_1_sq",
         send_device=w1, send_device_incarnation=inc[1], recv_device=w0)
    node(g0, "a/_2", "_Recv", device=w0, tensor_type="DT_FLOAT", tensor_name="a:0",
         send_device=w0, send_device_incarnation=inc[0], recv_device=w0,
         client_terminated=True)
    node(g0, "sum", "AddV2", ["sq/_1", "a/_2"], device=w0, T="DT_FLOAT")
    node(g0, "sum/_3", "_Send", ["sum"], device=w0, T="DT_FLOAT", tensor_name="sum:0",
         send_device=w0, send_device_incarnation=inc[0], recv_device=w0,
         client_terminated=True)
    handles = []
    for w, g in ((workers[0], g0), (workers[1], g1)):
        r = w("RegisterGraph", pb.worker.RegisterGraphRequest(
            session_handle=session, create_worker_session_called=True, graph_def=g))
        handles.append(r.graph_handle)
    check(all(handles), "RegisterGraph on both tasks")

    step = random.getrandbits(56)
    results = [None, None]

    def run_graph(i):
        req = pb.worker.RunGraphRequest(
            session_handle=session, create_worker_session_called=True,
            graph_handle=handles[i], step_id=step, store_errors_in_response_body=True)
        if i == 0:
            req.send.add(name=key(w0, inc[0], w0, "a:0"), tensor=tensor([10.0, 20.0, 30.0]))
            req.recv_key.append(key(w0, inc[0], w0, "sum:0"))
        results[i] = workers[i]("RunGraph", req, timeout=30)

    threads = [threading.Thread(target=run_graph, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    ok = all(r is not None and r.status_code == 0 for r in results)
    check(ok and [x.name for x in results[0].recv] == [key(w0, inc[0], w0, "sum:0")]
          and floats(results[0].recv[0].tensor) == [11, 24, 39],
          "RunGraph on both tasks, the tensor pulled over RecvTensor")
    for w in workers:
        w("CleanupGraph", pb.worker.CleanupGraphRequest(step_id=step))

    # RecvTensor from this test: a big tensor (fast path) and a dead one.
    g2 = pb.graph.GraphDef()
    big = pb.tensor.TensorProto(dtype=pb.types.DT_FLOAT)
    big.tensor_shape.dim.add().size = 300000
    big.float_val.append(0.5)  # one value repeats to every element
    node(g2, "big", "Const", device=w1, dtype="DT_FLOAT", value=big)
    node(g2, "big/_s", "_Send", ["big"], device=w1, T="DT_FLOAT", tensor_name="big",
         send_device=w1, send_device_incarnation=inc[1], recv_device=w0)
    node(g2, "p", "Const", device=w1, dtype="DT_BOOL", value=tensor([False], "DT_BOOL", []))
    node(g2, "sw", "Switch", ["big", "p"], device=w1, T="DT_FLOAT")
    node(g2, "sw/_s", "_Send", ["sw:1"], device=w1, T="DT_FLOAT", tensor_name="dead",
         send_device=w1, send_device_incarnation=inc[1], recv_device=w0)
    h2 = workers[1]("RegisterGraph", pb.worker.RegisterGraphRequest(
        session_handle=session, create_worker_session_called=True, graph_def=g2)).graph_handle
    step2 = random.getrandbits(56)
    r = workers[1]("RunGraph", pb.worker.RunGraphRequest(
        session_handle=session, create_worker_session_called=True, graph_handle=h2,
        step_id=step2), timeout=30)
    check(r.status_code == 0, "RunGraph of a graph that only sends")
    got = workers[1]("RecvTensor", pb.worker.RecvTensorRequest(
        step_id=step2, rendezvous_key=key(w1, inc[1], w0, "big")), timeout=30)
    values = floats(got.tensor)
    check(not got.is_dead and len(got.tensor.tensor_content) == 1200000 and
          len(values) == 300000 and values[0] == 0.5 == values[-1],
          "RecvTensor: a 1.2 MB tensor parses with plain protobuf")
    got = workers[1]("RecvTensor", pb.worker.RecvTensorRequest(
        step_id=step2, rendezvous_key=key(w1, inc[1], w0, "dead")), timeout=30)
    check(got.is_dead, "RecvTensor: a dead tensor has is_dead")
    code, details = error_code(lambda: workers[1]("RecvTensor", pb.worker.RecvTensorRequest(
        step_id=step2, rendezvous_key=key(w1, inc[1] ^ 1, w0, "big"))))
    check(code == grpc.StatusCode.ABORTED and "different device incarnation" in details,
          "RecvTensor with a stale incarnation is ABORTED")
    code, _ = error_code(lambda: workers[1]("RecvTensor", pb.worker.RecvTensorRequest(
        step_id=step2, rendezvous_key=key(w1, inc[1], w0, "never")), timeout=0.5))
    check(code == grpc.StatusCode.DEADLINE_EXCEEDED,
          "RecvTensor for a key never sent waits until the deadline")
    workers[1]("CleanupGraph", pb.worker.CleanupGraphRequest(step_id=step2))

    for w, h in ((workers[0], handles[0]), (workers[1], handles[1]), (workers[1], h2)):
        w("DeregisterGraph", pb.worker.DeregisterGraphRequest(
            session_handle=session, create_worker_session_called=True, graph_handle=h))
    r = workers[0]("RunGraph", pb.worker.RunGraphRequest(
        session_handle=session, create_worker_session_called=True, graph_handle=handles[0],
        step_id=1, store_errors_in_response_body=True))
    check(r.status_code == 10 and "Graph handle is not found" in r.status_error_message,
          "RunGraph of a deregistered graph: ABORTED in the response body")
    for w in workers:
        w("DeleteWorkerSession", pb.worker.DeleteWorkerSessionRequest(session_handle=session))
    code, details = error_code(lambda: workers[0]("RegisterGraph", pb.worker.RegisterGraphRequest(
        session_handle=session, create_worker_session_called=True, graph_def=g0)))
    check(code == grpc.StatusCode.ABORTED and "Session handle is not found" in details,
          "RegisterGraph in a deleted worker session is ABORTED")
    code, _ = error_code(lambda: workers[0]("Tracing", pb.worker.TracingRequest()))
    check(code == grpc.StatusCode.UNIMPLEMENTED, "Tracing is UNIMPLEMENTED")


def bad_requests(master, workers):
    for stub, method in ((workers[0], "RegisterGraph"), (workers[0], "RunGraph"),
                         (workers[0], "RecvTensor"), (master, "CreateSession"),
                         (master, "RunStep")):
        code, _ = error_code(lambda: stub.raw(method, b"\x0a\xff\xff\xff\xff\x0f\x01"))
        check(code != grpc.StatusCode.OK, f"{method} with bytes that do not parse: {code}")
    status = workers[0]("GetStatus", pb.worker.GetStatusRequest())
    check(len(status.device_attributes) == 1, "the server still answers")


def restarted_worker(c, master, channels):
    """A worker that restarts loses its partitions: a session's next step is
    refused (ABORTED, naming the restart), a new session runs."""
    g = pb.graph.GraphDef()
    node(g, "c", "Const", device="/job:worker/task:1", dtype="DT_FLOAT",
         value=tensor([4.0], shape=[]))
    node(g, "y", "Neg", ["c"], device="/job:worker/task:0", T="DT_FLOAT")
    # Optimization off: constant folding would compute y on task 0 alone.
    config = pb.config.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    handle = master("CreateSession", pb.master.CreateSessionRequest(
        graph_def=g, config=config)).session_handle
    run = pb.master.RunStepRequest(session_handle=handle, fetch=["y:0"])
    check(floats(master("RunStep", run, timeout=30).tensor[0].tensor) == [-4.0],
          "a session runs before the restart")
    c.kill(1)
    c.start(1)
    code, details = error_code(lambda: master("RunStep", run, timeout=30))
    check(code == grpc.StatusCode.ABORTED and "restarted" in details,
          "after task 1 restarts, the old session's step is ABORTED", details)
    master("CloseSession", pb.master.CloseSessionRequest(session_handle=handle))
    handle = master("CreateSession", pb.master.CreateSessionRequest(graph_def=g)).session_handle
    run.session_handle = handle
    check(floats(master("RunStep", run, timeout=30).tensor[0].tensor) == [-4.0],
          "a new session runs on the restarted task")


if __name__ == "__main__":
    sys.exit(main())
