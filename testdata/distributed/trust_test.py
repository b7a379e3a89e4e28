#!/usr/bin/python3
"""What a client can do to a dfg server through its port (every wait bounded):
  - a graph sent over the wire whose SaveV2 / ReadFile /
    InitializeTableFromTextFileV2 / WriteFile touches a path outside the
    server's --allow-path directories fails with PermissionDenied naming the
    op, the path and the flag, nothing is written, and the server goes on
    serving; inside an --allow-path directory the same ops work; '..' and a
    symlink out of the directory are refused;
  - mutual TLS (--tls-client-ca): a client without a certificate, or with
    one another CA signed, is refused; with the right one it runs, and the
    tasks of a 2-task cluster reach each other with their own certificates.

    /usr/bin/python3 testdata/distributed/trust_test.py --dfg build/dfg
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cluster import Cluster, find_dfg, run  # noqa: E402

FAILURES = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what + ("" if cond else f": {detail}"))
    if not cond:
        FAILURES.append(what)


def const(name, dtype, value, shape=""):
    field = {"DT_STRING": "string_val", "DT_FLOAT": "float_val"}[dtype]
    vals = value if isinstance(value, list) else [value]
    rendered = " ".join(f'{field}: "{v}"' if dtype == "DT_STRING" else f"{field}: {v}"
                        for v in vals)
    return (f'node {{ name: "{name}" op: "Const" device: "/job:worker/task:0" '
            f'attr {{ key: "dtype" value {{ type: {dtype} }} }} '
            f'attr {{ key: "value" value {{ tensor {{ dtype: {dtype} '
            f'tensor_shape {{ {shape} }} {rendered} }} }} }} }}\n')


def save_graph(prefix):
    return (const("prefix", "DT_STRING", prefix) +
            const("names", "DT_STRING", ["v"], "dim { size: 1 }") +
            const("slices", "DT_STRING", [""], "dim { size: 1 }") +
            const("v", "DT_FLOAT", 7.0) +
            'node { name: "save" op: "SaveV2" input: "prefix" input: "names" '
            'input: "slices" input: "v" device: "/job:worker/task:0" '
            'attr { key: "dtypes" value { list { type: DT_FLOAT } } } }\n')


def read_graph(path):
    return (const("path", "DT_STRING", path) +
            'node { name: "read" op: "ReadFile" input: "path" '
            'device: "/job:worker/task:0" }\n')


def folded_read_graph(path):
    """ReadFile of a constant path feeding another op: the master's constant
    folding must not read the file for the client."""
    return (read_graph(path) +
            'node { name: "len" op: "StringLength" input: "read" '
            'device: "/job:worker/task:0" }\n')


def write_graph(path):
    return (const("path", "DT_STRING", path) + const("data", "DT_STRING", "owned") +
            'node { name: "write" op: "WriteFile" input: "path" input: "data" '
            'device: "/job:worker/task:0" }\n')


def table_graph(path):
    """A text-file table initialized from `path`, then exported: the file's
    lines come back to the client."""
    return (const("path", "DT_STRING", path) +
            'node { name: "table" op: "HashTableV2" device: "/job:worker/task:0" '
            'attr { key: "key_dtype" value { type: DT_STRING } } '
            'attr { key: "value_dtype" value { type: DT_INT64 } } }\n'
            'node { name: "init" op: "InitializeTableFromTextFileV2" input: "table" '
            'input: "path" device: "/job:worker/task:0" '
            'attr { key: "key_index" value { i: -2 } } '
            'attr { key: "value_index" value { i: -1 } } }\n'
            'node { name: "export" op: "LookupTableExportV2" input: "table" '
            'input: "^init" device: "/job:worker/task:0" '
            'attr { key: "Tkeys" value { type: DT_STRING } } '
            'attr { key: "Tvalues" value { type: DT_INT64 } } }\n')


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def dfg_run(dfg, graph, c, *args):
    return run([dfg, "run", graph, "--master", c.target(), "--timeout-ms", "30000",
                *args], timeout=60)


def refused(r, op, path):
    """Exit 1 with an error naming the op, the path and the flag."""
    return (r.returncode == 1 and op in r.stderr and path in r.stderr and
            "refused" in r.stderr and "--allow-path" in r.stderr)


def confinement(dfg, tmp):
    allowed = os.path.join(tmp, "allowed")
    outside = os.path.join(tmp, "outside")
    os.makedirs(allowed)
    os.makedirs(outside)
    secret = write(outside, "secret.txt", "top\nsecret\n")
    vocab = write(allowed, "vocab.txt", "alpha\nbeta\n")
    os.symlink(outside, os.path.join(allowed, "link"))
    square = os.path.join(HERE, "square.pbtxt")

    def cases(c):
        ckpt = os.path.join(outside, "ckpt")
        r = dfg_run(dfg, write(tmp, "save_out.pbtxt", save_graph(ckpt)), c, "--target", "save")
        check(refused(r, "SaveV2", ckpt) and not os.path.exists(ckpt + ".index"),
              "SaveV2 outside the allowed directories is refused, nothing written",
              r.stderr)
        r = dfg_run(dfg, write(tmp, "read_out.pbtxt", read_graph(secret)), c, "--fetch", "read")
        check(refused(r, "ReadFile", secret) and "secret" not in r.stdout,
              "ReadFile outside is refused", r.stderr + r.stdout)
        r = dfg_run(dfg, write(tmp, "table_out.pbtxt", table_graph(secret)), c,
                    "--fetch", "export:0")
        check(refused(r, "InitializeTableFromTextFileV2", secret) and "top" not in r.stdout,
              "InitializeTableFromTextFileV2 outside is refused", r.stderr + r.stdout)
        r = dfg_run(dfg, write(tmp, "fold_out.pbtxt", folded_read_graph(secret)), c,
                    "--fetch", "len")
        check(refused(r, "ReadFile", secret) and "11" not in r.stdout,
              "ReadFile outside is refused when its result could be folded", r.stderr)
        dest = os.path.join(outside, "owned.txt")
        r = dfg_run(dfg, write(tmp, "write_out.pbtxt", write_graph(dest)), c, "--target", "write")
        check(refused(r, "WriteFile", dest) and not os.path.exists(dest),
              "WriteFile outside is refused", r.stderr)
        for name, path in (("'..'", os.path.join(allowed, "..", "outside", "secret.txt")),
                           ("a symlink", os.path.join(allowed, "link", "secret.txt"))):
            r = dfg_run(dfg, write(tmp, "escape.pbtxt", read_graph(path)), c, "--fetch", "read")
            check(r.returncode == 1 and "ReadFile" in r.stderr and "top" not in r.stdout,
                  f"ReadFile through {name} out of the allowed directory is refused",
                  r.stderr + r.stdout)
        r = dfg_run(dfg, square, c, "--feed", "x=3", "--fetch", "y")
        check(r.returncode == 0 and "10" in r.stdout,
              "the server serves the next session after the refusals", r.stderr)

    # No --allow-path: no file at all, even the "allowed" one.
    with Cluster(dfg, 2) as c:
        cases(c)
        r = dfg_run(dfg, write(tmp, "read_in0.pbtxt", read_graph(vocab)), c, "--fetch", "read")
        check(refused(r, "ReadFile", vocab) and "no directory is allowed" in r.stderr,
              "without --allow-path every file op is refused", r.stderr)
    with Cluster(dfg, 2, extra=["--allow-path", allowed]) as c:
        cases(c)
        ckpt = os.path.join(allowed, "sub", "ckpt")
        r = dfg_run(dfg, write(tmp, "save_in.pbtxt", save_graph(ckpt)), c, "--target", "save")
        check(r.returncode == 0 and os.path.exists(ckpt + ".index"),
              "SaveV2 inside an --allow-path directory writes the checkpoint", r.stderr)
        r = dfg_run(dfg, write(tmp, "read_in.pbtxt", read_graph(vocab)), c, "--fetch", "read")
        check(r.returncode == 0 and "alpha" in r.stdout,
              "ReadFile inside an --allow-path directory", r.stderr)
        r = dfg_run(dfg, write(tmp, "table_in.pbtxt", table_graph(vocab)), c,
                    "--fetch", "export:0")
        check(r.returncode == 0 and "beta" in r.stdout,
              "InitializeTableFromTextFileV2 inside an --allow-path directory",
              r.stderr + r.stdout)
    r = run([dfg, "server", "--cluster", "worker=127.0.0.1:1", "--allow-path",
             os.path.join(tmp, "nope")], timeout=30)
    check(r.returncode == 1 and "--allow-path" in r.stderr and "nope" in r.stderr,
          "--allow-path of a missing directory is an error", r.stderr)
    # Local dfg run: the user's own files, no confinement.
    local = read_graph(secret).replace(' device: "/job:worker/task:0"', "")
    r = run([dfg, "run", write(tmp, "read_local.pbtxt", local),
             "--fetch", "read"], timeout=60)
    check(r.returncode == 0 and "secret" in r.stdout, "local dfg run reads any file",
          r.stderr)


def openssl(*args):
    return subprocess.run(["openssl", *args], capture_output=True, text=True, timeout=60)


def make_pki(tmp):
    """Two CAs, a server certificate for 127.0.0.1 and a client certificate
    from the first, a client certificate from the second. None: no openssl."""
    def ca(name):
        key, cert = os.path.join(tmp, f"{name}.key"), os.path.join(tmp, f"{name}.pem")
        r = openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "1", "-subj", f"/CN={name}")
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        return key, cert

    def leaf(name, ca_key, ca_cert, san):
        key, csr, cert = (os.path.join(tmp, f"{name}.{e}") for e in ("key", "csr", "pem"))
        r = openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr,
                    "-subj", f"/CN={name}")
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        ext = write(tmp, f"{name}.ext", f"subjectAltName={san}\n")
        r = openssl("x509", "-req", "-in", csr, "-CA", ca_cert, "-CAkey", ca_key,
                    "-CAcreateserial", "-out", cert, "-days", "1", "-extfile", ext)
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        return cert, key

    try:
        ca_key, ca_cert = ca("ca")
        other_key, other_cert = ca("other_ca")
        return {"ca": ca_cert,
                "server": leaf("server", ca_key, ca_cert, "IP:127.0.0.1"),
                "client": leaf("client", ca_key, ca_cert, "DNS:client"),
                "stranger": leaf("stranger", other_key, other_cert, "DNS:stranger")}
    except (OSError, RuntimeError) as e:
        if os.environ.get("DFG_REQUIRE_DEPS") == "1":
            check(False, "openssl makes certificates (DFG_REQUIRE_DEPS=1)", str(e))
        else:
            print(f"skip mutual TLS: openssl could not make certificates ({e})")
        return None


def mutual_tls(dfg, tmp):
    pki = make_pki(tmp)
    if pki is None:
        return
    cert, key = pki["server"]
    extra = ["--tls-cert", cert, "--tls-key", key, "--tls-ca", pki["ca"],
             "--tls-client-ca", pki["ca"]]
    square = os.path.join(HERE, "square.pbtxt")
    with Cluster(dfg, 2, extra=extra) as c:
        base = [dfg, "run", square, "--master", c.target(), "--tls-ca", pki["ca"],
                "--feed", "x=3", "--fetch", "y", "--timeout-ms", "20000"]
        r = run(base, timeout=60)
        check(r.returncode == 1, "mutual TLS: a client without a certificate is refused",
              r.stdout + r.stderr)
        r = run(base + ["--tls-cert", pki["stranger"][0], "--tls-key", pki["stranger"][1]],
                timeout=60)
        check(r.returncode == 1,
              "mutual TLS: a client certificate another CA signed is refused",
              r.stdout + r.stderr)
        r = run(base + ["--tls-cert", pki["client"][0], "--tls-key", pki["client"][1]],
                timeout=60)
        check(r.returncode == 0 and "10" in r.stdout,
              "mutual TLS: the right client certificate runs a step on both tasks",
              r.stderr)
    r = run([dfg, "server", "--cluster", "worker=127.0.0.1:1", "--tls-client-ca",
             pki["ca"]], timeout=30)
    check(r.returncode == 1 and "--tls-client-ca" in r.stderr,
          "--tls-client-ca without --tls-cert is an error", r.stderr)


def main():
    dfg = find_dfg(sys.argv)
    with tempfile.TemporaryDirectory() as tmp:
        confinement(dfg, os.path.realpath(tmp))
        mutual_tls(dfg, tmp)
    if FAILURES:
        print(f"{len(FAILURES)} failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
