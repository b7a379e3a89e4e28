#!/usr/bin/python3
"""Seeds for request_fuzz: one file per request, the kind byte that
request_fuzz.cc switches on, then the request's protobuf bytes (protoc
--encode from text). Graph-carrying requests (RegisterGraph, CreateSession,
ExtendSession) take the corpus graphs given on the command line, converted
with `dfg convert -f pbtxt`; the others are requests as the dfg master and
TensorFlow's send them, and RecvTensorResponses (dense, string, dead, a
TensorList variant in variant_val and in tensor_content).

    lib/distributed/fuzz/make_request_seeds.py --dfg build/dfg OUT_DIR \\
        ../shared/corpus/*.pbtxt
"""
import hashlib
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
TASK0 = "/job:worker/replica:0/task:0/device:CPU:0"
TASK1 = "/job:worker/replica:0/task:0/device:CPU:1"


def encode(message, text, proto="lib/proto/worker.proto"):
    r = subprocess.run(["protoc", f"--proto_path={ROOT}",
                        f"--encode=tensorflow.{message}", proto],
                       input=text.encode(), capture_output=True, cwd=ROOT)
    if r.returncode != 0:
        raise RuntimeError(f"{message}: {r.stderr.decode()}")
    return r.stdout


def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def octal(data):
    return "".join(f"\\{b:03o}" for b in data)


def tensor_list_text():
    # TensorList::Encode: 1 unset element (index 0), DT_FLOAT, max -1,
    # element shape [2].
    shape = bytes([0x12, 0x02, 0x08, 0x02])
    meta = varint(1) + varint(0) + varint(1) + varint(2**64 - 1) + shape
    return ('type_name: "tensorflow::TensorList" metadata: "%s" '
            'tensors { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } '
            'float_val: 1 float_val: 2 }' % octal(meta))


def fixed_requests():
    key = f"{TASK0};0000000000000001;{TASK1};edge_1_x;0:0"
    tl = tensor_list_text()
    tl_bytes = encode("VariantTensorDataProto", tl, "lib/proto/tensor.proto")
    content = varint(len(tl_bytes)) + tl_bytes
    dense = struct.pack("<4f", 1, 2, 3, 4)
    return [
        (1, "RecvTensorRequest", f'step_id: 77 rendezvous_key: "{key}"'),
        (1, "RecvTensorRequest",
         f'step_id: 1 rendezvous_key: "{TASK0};0;{TASK1};x;1:2" dma_ok: true'),
        (2, "RunGraphRequest",
         'session_handle: "s" graph_handle: "g" step_id: 5 '
         f'send {{ name: "{key}" tensor {{ dtype: DT_FLOAT tensor_shape {{ '
         'dim { size: 4 } } tensor_content: "%s" } } '
         f'recv_key: "{key}" store_errors_in_response_body: true '
         'exec_opts { record_timeline: true }' % octal(dense)),
        (2, "RunGraphRequest",
         f'graph_handle: "g" step_id: 6 send {{ name: "{key}" '
         f'tensor {{ dtype: DT_VARIANT tensor_shape {{}} variant_val {{ {tl} }} }} }}'),
        (3, "CreateWorkerSessionRequest",
         'session_handle: "sess" server_def { cluster { job { name: "worker" '
         'tasks { key: 0 value: "127.0.0.1:1" } } } job_name: "worker" '
         'protocol: "grpc" } master_task: "/job:worker/replica:0/task:0" '
         'master_incarnation: 12345'),
        (4, "RunStepRequest",
         'session_handle: "s" feed { name: "x:0" tensor { dtype: DT_FLOAT '
         'tensor_shape {} float_val: 3 } } feed { name: "s" tensor { '
         'dtype: DT_STRING tensor_shape { dim { size: 2 } } string_val: "a" '
         'string_val: "bc" } } fetch: "y:0" target: "t" '
         'options { timeout_in_ms: 100 trace_level: FULL_TRACE }'),
        (5, "RunCallableRequest",
         'session_handle: "s" handle: 3 feed { dtype: DT_INT64 tensor_shape '
         '{ dim { size: 2 } } int64_val: 1 int64_val: 2 } '
         f'feed {{ dtype: DT_VARIANT tensor_shape {{}} tensor_content: "{octal(content)}" }}'),
        (8, "CleanupAllRequest", 'container: "c" container: ""'),
        (9, "RecvTensorResponse",
         'tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } '
         'tensor_content: "%s" } send_start_micros: 1700000000000000' % octal(dense)),
        (9, "RecvTensorResponse",
         'tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } } '
         'string_val: "x" string_val: "yz" }'),
        (9, "RecvTensorResponse", "is_dead: true send_start_micros: 3"),
        (9, "RecvTensorResponse",
         f'tensor {{ dtype: DT_VARIANT tensor_shape {{}} variant_val {{ {tl} }} }}'),
        (9, "RecvTensorResponse",
         f'tensor {{ dtype: DT_VARIANT tensor_shape {{ dim {{ size: 1 }} }} '
         f'tensor_content: "{octal(content)}" }}'),
    ]


def graph_requests(dfg, model):
    r = subprocess.run([dfg, "convert", model, "-f", "pbtxt"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return []
    g = r.stdout
    return [
        (0, "RegisterGraphRequest", f"graph_def {{ {g} }}"),
        (6, "CreateSessionRequest",
         f'graph_def {{ {g} }} config {{ allow_soft_placement: true }} '
         'target: "grpc://127.0.0.1:1"', "lib/proto/master.proto"),
        (7, "ExtendSessionRequest",
         f'session_handle: "s" graph_def {{ {g} }} current_graph_version: 1',
         "lib/proto/master.proto"),
    ]


def main():
    args = sys.argv[1:]
    dfg = os.path.join(ROOT, "build", "dfg")
    if "--dfg" in args:
        i = args.index("--dfg")
        dfg = args[i + 1]
        del args[i:i + 2]
    out, models = args[0], args[1:]
    os.makedirs(out, exist_ok=True)
    requests = fixed_requests()
    for m in models:
        requests += graph_requests(dfg, m)
    n = 0
    for item in requests:
        kind, message, text = item[:3]
        proto = item[3] if len(item) > 3 else "lib/proto/worker.proto"
        if message in ("RunStepRequest", "RunCallableRequest"):
            proto = "lib/proto/master.proto"
        data = bytes([kind]) + encode(message, text, proto)
        name = hashlib.sha1(data).hexdigest()[:16]
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        n += 1
    print(f"{n} seeds in {out}")


if __name__ == "__main__":
    main()
