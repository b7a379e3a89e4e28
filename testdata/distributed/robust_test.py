#!/usr/bin/python3
"""A dfg cluster under requests meant to take it down, scripted (every wait
bounded). Each fails cleanly, and the servers go on serving the next session:
  - a recursive library function (and a mutually recursive pair):
    TensorFlow's "Recursive function calls are not supported";
  - a Pad to 2^41 elements on task 1: ResourceExhausted "OOM when
    allocating tensor with shape[...]";
  - a RunStep feed that claims shape [250000000] with one float_val, over
    --step-memory-limit: ResourceExhausted, the master's RSS bounded;
  - 32 clients sending their first step at once (the master registers its
    own partition in-process: no deadlock on its pool);
  - many RecvTensor calls for keys never sent, abandoned at a 50 ms deadline:
    the worker drops each waiter (RSS bounded).

    /usr/bin/python3 testdata/distributed/robust_test.py --dfg build/dfg
"""
import os
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cluster import Cluster, find_dfg, run  # noqa: E402
import wire_test  # noqa: E402  (skips without python3-grpcio)
from wire_test import Stub, compile_protos, error_code, key, node  # noqa: E402

grpc = wire_test.grpc
FAILURES = wire_test.FAILURES
check = wire_test.check
TASK = wire_test.TASK


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0


def serves(dfg, c, what):
    """A new session runs a step across both tasks."""
    r = run([dfg, "run", os.path.join(HERE, "square.pbtxt"), "--master", c.target(),
             "--feed", "x=3", "--fetch", "y"], timeout=60)
    check(r.returncode == 0 and "10" in r.stdout,
          f"after {what}: the cluster serves the next session", r.stderr)


def hostile_graphs(dfg, c):
    for name in ("recursive", "mutually_recursive"):
        r = run([dfg, "run", os.path.join(HERE, name + ".pbtxt"), "--master",
                 c.target(), "--fetch", "y"], timeout=60)
        check(r.returncode == 1 and
              "Recursive function calls are not supported" in r.stderr and
              "which is already present in the call stack" in r.stderr,
              f"a {name.replace('_', ' ')} function is refused (TensorFlow's message)",
              f"code {r.returncode}: {r.stderr[-600:]}")
        check(all(p.poll() is None for p in c.procs), f"the tasks survive a {name} function")
        serves(dfg, c, f"a {name} function")
    r = run([dfg, "run", os.path.join(HERE, "oom_pad.pbtxt"), "--master", c.target(),
             "--fetch", "y"], timeout=60)
    check(r.returncode == 1 and "OOM when allocating tensor with shape[2199023255553]" in r.stderr,
          "an OOM-sized Pad fails the step with ResourceExhausted",
          f"code {r.returncode}: {r.stderr[-600:]}")
    check(all(p.poll() is None for p in c.procs), "the tasks survive an OOM-sized Pad")
    serves(dfg, c, "an OOM-sized Pad")


def square_graph():
    g = wire_test.pb.graph.GraphDef()
    node(g, "x", "Const", device="/job:worker/task:1", dtype="DT_FLOAT",
         value=wire_test.tensor([3.0], shape=[]))
    node(g, "y", "Mul", ["x", "x"], device="/job:worker/task:0", T="DT_FLOAT")
    return g


def concurrent_first_steps(master, n=32):
    handles = [master("CreateSession", wire_test.pb.master.CreateSessionRequest(
        graph_def=square_graph()), timeout=30).session_handle for _ in range(n)]
    barrier = threading.Barrier(n)
    results = [None] * n

    def first_step(i):
        barrier.wait()
        req = wire_test.pb.master.RunStepRequest(session_handle=handles[i], fetch=["y:0"])
        try:
            out = master("RunStep", req, timeout=30)
            results[i] = wire_test.floats(out.tensor[0].tensor)
        except grpc.RpcError as e:
            results[i] = f"{e.code()}: {e.details()}"

    start = time.monotonic()
    threads = [threading.Thread(target=first_step, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    took = time.monotonic() - start
    bad = [r for r in results if r != [9.0]]
    check(not bad and took < 30, f"{n} clients' first steps at once all succeed",
          f"{len(bad)} failed after {took:.1f}s: {bad[:3]}")
    for h in handles:
        master("CloseSession", wire_test.pb.master.CloseSessionRequest(session_handle=h))


def huge_claimed_feed(master, pid):
    g = wire_test.pb.graph.GraphDef()
    node(g, "x", "Placeholder", device="/job:worker/task:1", dtype="DT_FLOAT")
    node(g, "y", "Size", ["x"], device="/job:worker/task:1", T="DT_FLOAT",
         out_type="DT_INT32")
    handle = master("CreateSession", wire_test.pb.master.CreateSessionRequest(
        graph_def=g), timeout=30).session_handle
    before = rss_mb(pid)
    req = wire_test.pb.master.RunStepRequest(session_handle=handle, fetch=["y:0"])
    feed = req.feed.add(name="x:0")
    feed.tensor.dtype = wire_test.pb.types.DT_FLOAT
    feed.tensor.tensor_shape.dim.add().size = 250000000
    feed.tensor.float_val.append(1.0)
    code, details = error_code(lambda: master("RunStep", req, timeout=30))
    check(code == grpc.StatusCode.RESOURCE_EXHAUSTED and
          "OOM when allocating tensor with shape[250000000]" in details,
          "a feed claiming 1 GB in a tiny message is over --step-memory-limit",
          f"{code}: {details}")
    master("CloseSession", wire_test.pb.master.CloseSessionRequest(session_handle=handle))
    grown = rss_mb(pid) - before
    check(grown < 100, "the refused feed leaves the master's memory as it was",
          f"RSS grew {grown:.0f} MB")


def abandoned_recvs(worker, pid, n):
    inc = worker("GetStatus", wire_test.pb.worker.GetStatusRequest()).device_attributes[0].incarnation
    src, dst = TASK.format(1), TASK.format(0)
    call = worker.channel.unary_unary(
        "/tensorflow.WorkerService/RecvTensor",
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=wire_test.pb.worker.RecvTensorResponse.FromString)

    def batch(first, count):
        futures = [call.future(wire_test.pb.worker.RecvTensorRequest(
            step_id=1000000 + first + i, rendezvous_key=key(src, inc, dst, f"never{i}")),
            timeout=0.05) for i in range(count)]
        return sum(1 for f in futures if f.exception() is not None and
                   f.code() == grpc.StatusCode.DEADLINE_EXCEEDED)

    batch(0, 500)  # the server's buffers at their working size
    before = rss_mb(pid)
    expired = 0
    for first in range(500, n, 500):
        expired += batch(first, 500)
    time.sleep(0.5)
    grown = rss_mb(pid) - before
    check(expired == n - 500, "RecvTensor for keys never sent ends at the caller's deadline",
          f"{expired} of {n - 500}")
    # A leak of the waiters (16 KB each) would be 300 MB here. Under
    # AddressSanitizer its allocator keeps what the calls churned through
    # (measured 67-159 MB for 20000 calls, depending on the machine's load)
    # and a leak grows 20 KB a call (405 MB): the bound is wider there, and
    # distributed_test counts the worker's step rendezvous exactly.
    asan = "address" in os.environ.get("DFG_SANITIZE", "")
    bound = 250 if asan else 60
    check(grown < bound,
          f"{n} abandoned RecvTensor calls leave no waiters behind",
          f"RSS grew {grown:.0f} MB (bound {bound} MB"
          f"{', AddressSanitizer' if asan else ''})")


def main():
    dfg = find_dfg(sys.argv)
    # Under AddressSanitizer a huge allocation aborts the process by default;
    # with this it fails as it does without ASan (std::bad_alloc), which is
    # what the OOM cases test.
    os.environ["ASAN_OPTIONS"] = (os.environ.get("ASAN_OPTIONS", "") +
                                  ":allocator_may_return_null=1:quarantine_size_mb=0").lstrip(":")
    with tempfile.TemporaryDirectory() as tmp:
        compile_protos(tmp)
        from lib.proto import (attr_value_pb2, config_pb2, graph_pb2,  # noqa
                               master_pb2, tensor_pb2, types_pb2, worker_pb2)
        wire_test.pb = type("pb", (), dict(attr=attr_value_pb2, config=config_pb2,
                                           graph=graph_pb2, master=master_pb2,
                                           tensor=tensor_pb2, types=types_pb2,
                                           worker=worker_pb2))
        with Cluster(dfg, 2, extra=["--step-memory-limit", "256M"]) as c:
            channels = [grpc.insecure_channel(c.address(i)) for i in range(2)]
            master = Stub(channels[0], "MasterService", master_pb2)
            worker1 = Stub(channels[1], "WorkerService", worker_pb2)
            hostile_graphs(dfg, c)
            concurrent_first_steps(master)
            serves(dfg, c, "32 concurrent first steps")
            huge_claimed_feed(master, c.procs[0].pid)
            serves(dfg, c, "a huge claimed feed")
            abandoned_recvs(worker1, c.procs[1].pid, int(os.environ.get("DFG_RECVS", "20000")))
            serves(dfg, c, "abandoned RecvTensor calls")
            for ch in channels:
                ch.close()
    print(f"{len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
