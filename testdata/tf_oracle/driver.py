"""Runs the TF oracle's sections in a thread pool and prints the results.

Every section module has `tasks(ctx)` -> [(case name, fn)], fn() -> Result,
and may have `prepare(ctx, names)`, called in the main thread before any case
runs when some of its cases are chosen (servers the cases share), and
`finish(ctx)`, called at the end whatever happened (stops them).
Threads suffice: the work is `dfg` subprocesses and TensorFlow sessions,
which release the GIL.
"""
import argparse
import concurrent.futures
import importlib
import os
import re
import shutil
import tempfile
import time
import traceback

import coverage

from common import Result


class Context:
    """What every section needs: the dfg binary, paths, options, notes."""

    def __init__(self, args, work):
        self.dfg = os.path.abspath(args.dfg)
        self.source_dir = os.path.abspath(args.source_dir)
        self.corpus = args.corpus
        self.filter = args.filter
        self.jobs = args.jobs
        self.work = work
        self.savedmodel_dir = args.savedmodel_dir or os.path.join(work, "savedmodels")
        self.notes = []

    def oracle_args(self):
        """The arguments ../oracle/difftest.py's collect() expects."""
        return argparse.Namespace(source_dir=self.source_dir, corpus=self.corpus,
                                  filter=None)

    def have_corpus(self):
        return os.path.isdir(self.corpus)


def _run(fn):
    try:
        return fn()
    except Exception:  # pylint: disable=broad-except
        return Result("fail", "driver error: " + traceback.format_exc().strip()[-800:])


def main(args, sections):
    chosen = args.section or sections
    if not args.list and not os.access(args.dfg, os.X_OK):
        print(f"tf_oracle: error: no dfg binary at {args.dfg}")
        print("0 passed, 1 failed, 0 skipped")
        return 1
    work = args.keep or tempfile.mkdtemp(prefix="dfg-tforacle-")
    ctx = Context(args, work)
    prepared = []
    try:
        todo, chosen_by = [], {}
        for section in chosen:
            module = importlib.import_module(f"{section}_diff")
            mine = [(n, f) for n, f in module.tasks(ctx)
                    if not args.filter or re.search(args.filter, n)]
            todo += mine
            if mine:
                chosen_by[module] = [n for n, _ in mine]
        if args.list:
            for name, _ in todo:
                print(name)
            return 0
        names = [n for n, _ in todo]
        dupes = sorted({n for n in names if names.count(n) > 1})
        assert not dupes, f"duplicate case names: {dupes}"
        start = time.time()
        for module, mine in chosen_by.items():
            if hasattr(module, "finish"):
                prepared.append(module)
            if hasattr(module, "prepare"):
                module.prepare(ctx, mine)
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            results = list(pool.map(lambda t: _run(t[1]), todo))
        return report(args, ctx, names, results, time.time() - start)
    finally:
        for module in prepared:
            module.finish(ctx)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def report(args, ctx, names, results, seconds):
    counts = {"pass": 0, "fail": 0, "skip": 0}
    skips = {}
    for name, res in zip(names, results):
        counts[res.status] += 1
        if res.status == "fail":
            print(f"FAIL {name}: {res.message}")
        elif res.status == "skip":
            skips.setdefault(res.message, []).append(name)
        elif args.verbose:
            print(f"ok   {name}" + (f" ({res.message})" if res.message else ""))
    for msg, group in sorted(skips.items()):
        if msg.startswith("known disagreement") or args.verbose:
            for name in group:  # never hidden behind a count
                print(f"SKIP {name}: {msg}")
            continue
        more = f" (+{len(group) - 1} more)" if len(group) > 1 else ""
        print(f"SKIP {group[0]}{more}: {msg}")
    for note in ctx.notes:
        print(f"note: {note}")
    if any(r.ops for r in results):
        print("note: " + coverage.report(ctx.source_dir, results, args.coverage))
    print(f"note: {len(names)} cases in {seconds:.0f} s")
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    return 1 if counts["fail"] else 0
