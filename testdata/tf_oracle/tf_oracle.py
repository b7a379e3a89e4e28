#!/usr/bin/python3
"""Differential tests of dfg against TensorFlow 2.21 itself.

Sections (all by default; `--section S` picks some):
  run        every op case and corpus model of the tfjs oracle: `dfg run` vs
             a tf.compat.v1 Session on the same GraphDef and feeds
  ops        TensorFlow's CPU ops one by one (op_cases/*.py), graphs built by
             TensorFlow's Python API; prints the op coverage (coverage.py)
  partition  `dfg prune | dfg place | dfg partition` vs TensorFlow's
             RunMetadata.partition_graphs (2 CPU devices, soft placement;
             up to 3 for replicate_graphs.py's constants)
  extract    `dfg prune --convention placeholder` vs
             tf.compat.v1.graph_util.extract_sub_graph
  errors     TensorFlow's error text vs dfg's for the golden bad-input cases
  savedmodel `dfg run DIR --signature` / `dfg freeze` vs TensorFlow on the
             SavedModels of make_savedmodels.py
  cluster    the run section's corpus models and cluster_graphs.py's cases on
             two-task clusters (dfg, TensorFlow, mixed; `dfg run --master` and
             TensorFlow's Python client) vs TensorFlow's local Session, and
             TensorFlow's distributed error texts

    /usr/bin/python3 testdata/tf_oracle/tf_oracle.py --dfg build/dfg [-k REGEX] [-v]

TensorFlow is found through DFG_TF_PYTHON (default
${XDG_CACHE_HOME:-~/.cache}/dfg/tf-venv/bin/python, made by .ci/install-tf.sh):
the script re-runs itself under that interpreter. Without it the script prints
why and exits with --skip-code; with DFG_REQUIRE_TF=1 that is a failure. The
last line is `N passed, N failed, N skipped`; the exit status is 1 if any case
failed.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
SECTIONS = ["run", "ops", "partition", "extract", "errors", "savedmodel", "cluster"]


def tf_python():
    if os.environ.get("DFG_TF_PYTHON"):
        return os.environ["DFG_TF_PYTHON"]
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(cache, "dfg", "tf-venv", "bin", "python")


def skip_code():
    argv = sys.argv
    return int(argv[argv.index("--skip-code") + 1]) if "--skip-code" in argv[:-1] else 0


def unavailable(reason):
    """TensorFlow cannot be used: a skip, or a failure under DFG_REQUIRE_TF=1."""
    if os.environ.get("DFG_REQUIRE_TF") == "1":
        print(f"tf_oracle: error: TensorFlow unavailable ({reason}) and "
              "DFG_REQUIRE_TF=1; run .ci/install-tf.sh or set DFG_TF_PYTHON")
        print("0 passed, 1 failed, 0 skipped")
        sys.exit(1)
    print(f"skipped: TensorFlow unavailable: {reason} "
          "(run .ci/install-tf.sh or set DFG_TF_PYTHON)")
    print("0 passed, 0 failed, 0 skipped")
    sys.exit(skip_code())


def bootstrap():
    """Re-runs this script under the TensorFlow venv's interpreter."""
    if os.environ.get("DFG_TF_ORACLE_CHILD") == "1":
        # Before TensorFlow is imported (tf_session.py says why).
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
        try:
            import tensorflow  # noqa: F401 pylint: disable=import-outside-toplevel,unused-import
        except ImportError as e:
            unavailable(f"{sys.executable} cannot import tensorflow: {e}")
        return
    python = tf_python()
    if not os.access(python, os.X_OK):
        unavailable(f"no Python at {python}")
    os.environ["DFG_TF_ORACLE_CHILD"] = "1"
    sys.stdout.flush()
    os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])


def parse_args():
    src = os.path.dirname(os.path.dirname(HERE))
    p = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    p.add_argument("--dfg", default=os.path.join(src, "build", "dfg"))
    p.add_argument("--source-dir", default=src)
    p.add_argument("--corpus", default=os.environ.get(
        "DFG_CORPUS_DIR", os.path.join(src, "..", "shared", "corpus")))
    p.add_argument("--section", action="append", choices=SECTIONS,
                   help="run only these sections (repeatable)")
    p.add_argument("-k", "--filter", help="only cases whose name matches REGEX")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("-v", "--verbose", action="store_true", help="list every case")
    p.add_argument("--keep", help="write case files to DIR and keep them")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--coverage", metavar="FILE",
                   help="write every core op and its state (pass, fail, untested) to FILE")
    p.add_argument("--savedmodel-dir",
                   help="where make_savedmodels.py writes (and keeps) its SavedModels")
    p.add_argument("--skip-code", type=int, default=0,
                   help="exit status when TensorFlow is unavailable")
    return p.parse_args()


def main():
    bootstrap()
    sys.path[:0] = [HERE, os.path.join(os.path.dirname(HERE), "oracle")]
    import driver  # pylint: disable=import-outside-toplevel
    return driver.main(parse_args(), SECTIONS)


if __name__ == "__main__":
    sys.exit(main())
