#!/usr/bin/python3
"""Differential test of `dfg run` against an independent oracle.

For every case (per-op graphs, corpus models, numpy-checked behaviours) it
writes the graph and seeded random feeds, runs `dfg run ... --output-dir` and,
where the case asks for it, the TensorFlow.js oracle (run_oracle.js, one Node
process per worker for all cases), then compares the fetches with per-dtype
tolerances. The last line is `N passed, N failed, N skipped`; the exit status
is 1 if any case failed.

    /usr/bin/python3 testdata/oracle/difftest.py --dfg build/dfg [-k REGEX] [-v]

Without node/npm (or when `npm ci` cannot install the pinned packages), the
numpy-checked cases still run and the oracle cases are skipped; the script
then prints 'skipped: node/npm unavailable' and exits with --skip-code, or 1
with DFG_REQUIRE_DEPS=1 (CI, after .ci/install-deps.sh installed them). The
same holds without numpy.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
SKIP_CODE = int(sys.argv[sys.argv.index("--skip-code") + 1]) \
    if "--skip-code" in sys.argv[:-1] else 0
# CI installs node/npm, the oracle's packages and numpy: there, what would
# be a skip is a failure.
REQUIRED = os.environ.get("DFG_REQUIRE_DEPS") == "1"
try:
    import numpy as np
except ImportError:
    print("skipped: numpy unavailable (use Debian's /usr/bin/python3 with python3-numpy)")
    if REQUIRED:
        print("FAIL: DFG_REQUIRE_DEPS=1 and numpy cannot be imported")
    print("0 passed, 0 failed, 0 skipped")
    sys.exit(1 if REQUIRED else SKIP_CODE)

import model_cases  # noqa: E402
import numpy_cases  # noqa: E402
import op_cases_array  # noqa: E402
import op_cases_image  # noqa: E402
import op_cases_math  # noqa: E402
import op_cases_nn  # noqa: E402

NO_KERNEL = re.compile(r"No OpKernel was registered to support Op '([^']+)'"
                       r"[^\n]*with these attrs: \[([^\]]*)\]")
UNKNOWN_OP = re.compile(r"Op type not registered '([^']+)'")
ORACLE_LACKS = re.compile(r"is not implemented|not supported|Unsupported|"
                          r"not yet implemented|unknown dtype|Unknown op")


def parse_args():
    src = os.path.dirname(os.path.dirname(HERE))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dfg", default=os.path.join(src, "build", "dfg"))
    p.add_argument("--source-dir", default=src)
    p.add_argument("--corpus", default=os.environ.get(
        "DFG_CORPUS_DIR", os.path.join(src, "..", "shared", "corpus")))
    p.add_argument("-k", "--filter", help="only cases whose name matches REGEX")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("-v", "--verbose", action="store_true", help="list every case")
    p.add_argument("--keep", help="write case files to DIR and keep them")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--skip-code", type=int, default=0,
                   help="exit status when the oracle is unavailable")
    p.add_argument("--no-oracle", action="store_true",
                   help="run the numpy-checked cases only")
    return p.parse_args()


def collect(args):
    cases = list(op_cases_math.all_cases()) + list(op_cases_array.all_cases())
    cases += list(op_cases_nn.all_cases())
    cases += list(op_cases_image.all_cases())
    cases += list(numpy_cases.all_cases(args.source_dir))
    notes = []
    if os.path.isdir(args.corpus):
        cases += list(model_cases.all_cases(args.corpus))
    elif os.environ.get("DFG_REQUIRE_SHARED"):
        sys.exit(f"DFG_REQUIRE_SHARED is set but there is no corpus at "
                 f"{args.corpus}")
    else:
        notes.append(f"corpus models skipped: no corpus at {args.corpus}")
    if args.filter:
        cases = [c for c in cases if re.search(args.filter, c.name)]
    names = [c.name for c in cases]
    dupes = {n for n in names if names.count(n) > 1}
    assert not dupes, f"duplicate case names: {sorted(dupes)}"
    return cases, notes


REGISTER = re.compile(r'Register\w*\s*(?:<[^;]*?>)?\s*\(\s*(?:\w+\s*,\s*)?"(\w+)"', re.S)
FOR_OPS = re.compile(r"for\s*\(\s*const char\s*\*\s*\w+\s*:\s*\{([^}]*)\}")
# Inserted by dfg itself (_Send/_Recv run in the two-device cases).
INTERNAL_OPS = {"_Arg", "_Retval", "_Send", "_Recv", "_HostSend", "_HostRecv"}


def uncovered_ops(source_dir, cases):
    """Ops with a kernel registration in lib/kernels that no case runs."""
    registered = set()
    for path in glob.glob(os.path.join(source_dir, "lib", "kernels", "*.cc")):
        if path.endswith(("_test.cc", "_bench.cc")):
            continue
        with open(path) as f:
            text = f.read()
        registered |= set(REGISTER.findall(text))
        for block in FOR_OPS.findall(text):
            registered |= set(re.findall(r'"(\w+)"', block))
    used = set()
    for case in cases:
        text = case.graph or ""
        model = getattr(case, "model", None)
        if not text and model and model.endswith(".pbtxt") and os.path.exists(model):
            with open(model) as f:  # the corpus models in text form
                text = f.read()
        used |= set(re.findall(r'op: "(\w+)"', text))
    return sorted(registered - used - INTERNAL_OPS)


def ensure_oracle():
    """None if the oracle can run, else why not (npm ci when needed)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node:
        return "node not found"
    marker = os.path.join(HERE, "node_modules", "@tensorflow", "tfjs-converter",
                          "package.json")
    if os.path.exists(marker):
        return None
    if not npm:
        return "npm not found"
    try:
        r = subprocess.run([npm, "ci", "--prefer-offline", "--no-audit", "--no-fund",
                            "--fetch-retries=1", "--fetch-timeout=30000"], cwd=HERE,
                           capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "npm ci timed out"
    if r.returncode != 0 or not os.path.exists(marker):
        tail = (r.stderr.strip().splitlines() or ["?"])[-1]
        return f"npm ci failed: {tail}"
    return None


def out_file(directory, tensor):
    return os.path.join(directory, re.sub(r"[^A-Za-z0-9._-]", "_", tensor) + ".npy")


def write_case(case, directory):
    os.makedirs(directory, exist_ok=True)
    if case.graph is not None:
        graph = os.path.join(directory, "graph.pbtxt")
        with open(graph, "w") as f:
            f.write(case.graph)
    else:
        graph = case.model
    feeds = {}
    for i, (name, value) in enumerate(case.feeds.items()):
        path = os.path.join(directory, f"feed{i}.npy")
        np.save(path, value)
        feeds[name] = path
    return graph, feeds


def run_dfg(args, case, directory):
    """Runs dfg (and converts the graph for the oracle). Returns a dict with
    'status' in {ok, error, skip, fail}, 'message', 'json' (converted graph)."""
    graph, feeds = write_case(case, directory)
    res = {"graph": graph, "feeds": feeds, "dir": directory}
    if not os.path.exists(graph):
        # CI has the corpus (DFG_REQUIRE_SHARED=1): a file it lacks fails.
        status = "fail" if os.environ.get("DFG_REQUIRE_SHARED") == "1" else "skip"
        return dict(res, status=status, message=f"model file missing: {graph}")
    cmd = [args.dfg, "run", graph, "--output-dir", os.path.join(directory, "dfg")]
    for name, path in feeds.items():
        cmd += ["--feed", f"{name}={path}"]
    for fetch in case.fetches:
        cmd += ["--fetch", fetch]
    if case.graph is not None and not case.dfg_args:
        # Tiny one-op graphs: thread pools would cost more than the op.
        cmd += ["--threads", "1", "--intra-threads", "1"]
    cmd += case.dfg_args
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return dict(res, status="error", message="dfg run timed out after 120 s")
    except OSError as e:
        return dict(res, status="error", message=f"cannot run dfg: {e}")
    if r.returncode != 0:
        m = NO_KERNEL.search(r.stderr)
        if m and "<no registered kernels>" in r.stderr:
            return dict(res, status="skip", message=f"no kernel in dfg: {m.group(1)}")
        if m:
            return dict(res, status="skip",
                        message=f"no kernel in dfg: {m.group(1)} with [{m.group(2)}]")
        m = UNKNOWN_OP.search(r.stderr)
        if m:
            return dict(res, status="skip", message=f"op unknown to dfg: {m.group(1)}")
        return dict(res, status="error", message=r.stderr.strip())
    if case.oracle_fetches():
        js = os.path.join(directory, "graph.json")
        try:
            c = subprocess.run([args.dfg, "convert", graph, "-f", "json", "-o", js],
                               capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            return dict(res, status="error", message=f"dfg convert failed: {e}")
        if c.returncode != 0:
            return dict(res, status="error",
                        message=f"dfg convert failed: {c.stderr.strip()}")
        res["json"] = js
    return dict(res, status="ok", message="")


def run_oracles(jobs, work, todo):
    """todo: [(case, result)]. Runs the oracle in `jobs` Node processes.
    Returns {case name: error message or None}."""
    batches = [todo[i::jobs] for i in range(jobs)]
    procs = []
    for i, batch in enumerate(batches):
        if not batch:
            continue
        manifest = [{"id": c.name, "graph": r["json"], "feeds": r["feeds"],
                     "fetches": c.oracle_fetches(),
                     "output_dir": os.path.join(r["dir"], "oracle")}
                    for c, r in batch]
        path = os.path.join(work, f"manifest{i}.json")
        with open(path, "w") as f:
            json.dump(manifest, f)
        procs.append((batch, subprocess.Popen(
            ["node", os.path.join(HERE, "run_oracle.js"), "--batch", path],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    results = {}
    for batch, proc in procs:
        out, err = proc.communicate()
        for line in out.splitlines():
            rec = json.loads(line)
            results[rec["id"]] = None if rec["ok"] else rec["error"]
        for c, _ in batch:
            results.setdefault(c.name, f"oracle crashed: {err.strip()[-300:]}")
    return results


def tolerance(case, dtype):
    if case.rtol is not None or case.atol is not None:
        return (case.rtol if case.rtol is not None else 1e-5,
                case.atol if case.atol is not None else 1e-6)
    return {"float16": (1e-3, 1e-3)}.get(np.dtype(dtype).name, (1e-5, 1e-6))


def kind(dtype):
    d = np.dtype(dtype)
    return "bool" if d == np.bool_ else ("float" if d.kind == "f" else
                                         ("int" if d.kind in "iu" else d.kind))


def compare(got, want, rtol, atol, exact_dtype):
    """None when equal within tolerance, else a one-line description."""
    if exact_dtype and got.dtype != want.dtype:
        return f"dtype {got.dtype}, expected {want.dtype}"
    if kind(got.dtype) != kind(want.dtype):
        return f"dtype {got.dtype} vs {want.dtype}"
    if got.shape != want.shape:
        return f"shape {list(got.shape)}, expected {list(want.shape)}"
    if got.size == 0:
        return None
    if kind(got.dtype) != "float":
        bad = got.astype(np.int64) != want.astype(np.int64) if kind(got.dtype) == "int" \
            else got != want
        if not bad.any():
            return None
        i = np.unravel_index(np.argmax(bad), bad.shape)
        return (f"{int(bad.sum())}/{bad.size} elements differ; first at {list(i)}: "
                f"dfg={got[i]} ref={want[i]}")
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan_bad = np.isnan(g) != np.isnan(w)
    inf_bad = (np.isinf(g) | np.isinf(w)) & (g != w) & ~np.isnan(g) & ~np.isnan(w)
    finite = np.isfinite(g) & np.isfinite(w)
    err = np.where(finite, np.abs(g - w), 0.0)
    bad = nan_bad | inf_bad | (err > atol + rtol * np.abs(np.where(finite, w, 0)))
    if not bad.any():
        return None
    i = np.unravel_index(np.argmax(np.where(bad, err + (nan_bad | inf_bad), -1)), bad.shape)
    return (f"{int(bad.sum())}/{bad.size} elements off; max abs err "
            f"{err[bad].max():.3g} (rtol {rtol:g}, atol {atol:g}); at {list(i)}: "
            f"dfg={g[i]!r} ref={w[i]!r}")


def check(case, res, oracle_error):
    """Returns (status, message) with status in {pass, fail, skip}; a pass
    message says what was not compared."""
    if res["status"] in ("skip", "fail"):
        return res["status"], res["message"]
    if case.expect_error:
        if res["status"] == "ok":
            return "fail", f"dfg succeeded; expected an error matching /{case.expect_error}/"
        if re.search(case.expect_error, res["message"]):
            return "pass", ""
        return "fail", f"wrong error: {res['message']}"
    if res["status"] == "error":
        return "fail", f"dfg failed: {res['message']}"
    problems = []
    for fetch in case.fetches:
        path = out_file(os.path.join(res["dir"], "dfg"), fetch)
        if not os.path.exists(path):
            problems.append(f"{fetch}: dfg wrote no {os.path.basename(path)}")
            continue
        got = np.load(path)
        refs = []
        if fetch in case.expected:
            refs.append(("numpy", np.asarray(case.expected[fetch]), True))
        if fetch in case.oracle_fetches() and oracle_error is None:
            refs.append(("oracle", np.load(out_file(os.path.join(res["dir"], "oracle"),
                                                    fetch)), False))
        for who, want, exact in refs:
            msg = compare(got, want, *tolerance(case, want.dtype), exact)
            if msg:
                problems.append(f"{fetch} vs {who}: {msg}")
    for a, b in case.equal_fetches:
        pa, pb = (out_file(os.path.join(res["dir"], "dfg"), f) for f in (a, b))
        if os.path.exists(pa) and os.path.exists(pb):
            want = np.load(pb)
            msg = compare(np.load(pa), want, *tolerance(case, want.dtype), True)
            if msg:
                problems.append(f"{a} vs {b} (unfused): {msg}")
    if problems:
        return "fail", "; ".join(problems)
    if oracle_error is not None:
        if not case.expected:
            return "skip", oracle_error
        return "pass", f"numpy only; {oracle_error}"
    return "pass", ""


def main():
    args = parse_args()
    cases, notes = collect(args)
    if args.list:
        for c in cases:
            print(c.name)
        return 0
    if not os.access(args.dfg, os.X_OK):
        print(f"difftest: error: no dfg binary at {args.dfg}", file=sys.stderr)
        return 1
    oracle_down = "disabled (--no-oracle)" if args.no_oracle else ensure_oracle()
    work = args.keep or tempfile.mkdtemp(prefix="dfg-difftest-")
    try:
        return run_all(args, cases, notes, oracle_down, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def run_all(args, cases, notes, oracle_down, work):
    def run(index_case):
        i, case = index_case
        if oracle_down and not case.expected and not case.expect_error:
            return {"status": "skip", "message": f"oracle unavailable: {oracle_down}"}
        return run_dfg(args, case, os.path.join(work, f"{i:04d}"))

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(run, enumerate(cases)))
    todo = [(c, r) for c, r in zip(cases, results)
            if r["status"] == "ok" and c.oracle_fetches()]
    oracle = {}
    if oracle_down:
        oracle = {c.name: f"oracle unavailable: {oracle_down}" for c, _ in todo}
    elif todo:
        oracle = run_oracles(max(1, args.jobs), work, todo)
    counts = {"pass": 0, "fail": 0, "skip": 0}
    skips = {}
    for case, res in zip(cases, results):
        err = oracle.get(case.name)
        if err is not None and not oracle_down and not ORACLE_LACKS.search(err):
            status, msg = "fail", f"oracle error: {err}"
        else:
            status, msg = check(case, res, err)
        counts[status] += 1
        if status == "fail":
            print(f"FAIL {case.name}: {msg}")
        elif status == "skip":
            skips.setdefault(msg, []).append(case.name)
        elif args.verbose:
            print(f"ok   {case.name}" + (f" ({msg})" if msg else ""))
    for msg, names in sorted(skips.items()):
        more = f" (+{len(names) - 1} more)" if len(names) > 1 else ""
        print(f"SKIP {names[0]}{more}: {msg}")
    if not args.filter:
        missing = uncovered_ops(args.source_dir, cases)
        if missing:
            notes.append("ops with a dfg kernel but no case here: " + ", ".join(missing))
    for note in notes:
        print(f"note: {note}")
    if oracle_down:
        print(f"skipped: node/npm unavailable ({oracle_down}); "
              "only the numpy-checked cases ran")
    required_down = oracle_down and not args.no_oracle and REQUIRED
    if required_down:
        print(f"FAIL: DFG_REQUIRE_DEPS=1 and the oracle cannot run ({oracle_down}); "
              "run .ci/install-deps.sh")
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    if counts["fail"] or required_down:
        return 1
    return args.skip_code if oracle_down and not args.no_oracle else 0


if __name__ == "__main__":
    sys.exit(main())
