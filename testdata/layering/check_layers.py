#!/usr/bin/env python3
"""Checks the layering that docs/ARCHITECTURE.md describes, from the sources.

Three kinds of rule, each read off the tree as it is (no build needed):

1. Folder dependencies: every `#include "lib/X/..."` in a library, command or
   cli source (tests, benchmarks and fuzzers excepted) must be one of the
   dependencies ALLOWED lists for its folder, so that the graph stays the one
   the document draws, acyclic, with the stages never including each other.
2. Third-party headers: each library dfg wraps is included from one folder.
3. One composition: the calls that chain the stages into TensorFlow's
   pipeline (the post-rewrite passes, the partition of a client graph, the
   prune of a Graph for execution) appear only in the folders that own them,
   so the session, the master and `dfg partition` cannot drift apart.

Usage: check_layers.py [SOURCE_DIR]; prints every violation, exit 1 if any.
"""

import os
import re
import sys

# Folder -> folders it may include (besides itself). Keep in step with the
# table in docs/ARCHITECTURE.md.
BOTTOM = {"lib/base", "lib/proto"}
ALLOWED = {
    "lib/base": set(),
    "lib/proto": set(),
    "lib/graph": BOTTOM,
    "lib/io": BOTTOM | {"lib/graph"},
    "lib/prune": BOTTOM | {"lib/graph"},
    "lib/place": BOTTOM | {"lib/graph"},
    "lib/partition": BOTTOM | {"lib/graph"},
    "lib/dot": BOTTOM | {"lib/graph"},
    "lib/checkpoint": BOTTOM | {"lib/graph"},
    "lib/kernels": BOTTOM | {"lib/graph", "lib/checkpoint"},
    "lib/optimize": BOTTOM | {"lib/graph", "lib/prune", "lib/kernels"},
    "lib/pipeline": BOTTOM | {"lib/graph", "lib/prune", "lib/place",
                              "lib/partition", "lib/optimize"},
    "lib/exec": BOTTOM | {"lib/graph", "lib/pipeline", "lib/prune",
                          "lib/place", "lib/partition", "lib/kernels",
                          "lib/optimize"},
    "lib/tensor_io": BOTTOM | {"lib/graph", "lib/io", "lib/kernels"},
    "lib/savedmodel": BOTTOM | {"lib/graph", "lib/io", "lib/prune",
                                "lib/checkpoint", "lib/kernels", "lib/exec",
                                "lib/optimize",
                                "lib/tensor_io"},
    "lib/distributed": BOTTOM | {"lib/graph", "lib/pipeline", "lib/prune",
                                 "lib/place", "lib/partition", "lib/kernels",
                                 "lib/optimize", "lib/exec"},
    "lib/testing": BOTTOM,
}
# Commands and the binary may use every library; the binary (cli/) also
# the commands, never the other way round.
TOP = {"subcommands": set(), "cli": {"subcommands"}}

# Third-party header prefix -> the folders that include it.
THIRD_PARTY = {
    "leveldb/": {"lib/checkpoint"},
    "grpcpp/": {"lib/distributed"},
    "grpc/": {"lib/distributed"},
    "graphviz/": {"lib/dot"},
    "oneapi/dnnl": {"lib/kernels"},
    "dnnl": {"lib/kernels"},
    "re2/": {"lib/kernels"},
    "cblas.h": {"lib/kernels"},
    "openblas": {"lib/kernels"},
    "zlib.h": {"lib/io", "lib/kernels"},
    "zstd.h": {"lib/kernels"},
    "gif_lib.h": {"lib/kernels"},
    "webp/": {"lib/kernels"},
    "jxl/": {"lib/kernels"},
    "fftw3.h": {"lib/kernels"},
    "farmhash.h": {"lib/kernels"},
    "unicode/": {"lib/kernels"},
    "jpeglib.h": {"lib/kernels"},
    "png.h": {"lib/kernels"},
    "Eigen/": {"lib/kernels"},
    "CLI/": {"subcommands", "cli"},
}

# Calls that compose the stages -> the folders allowed to make them.
COMPOSITION = {
    r"\bReplicateSmallConstants\(": {"lib/partition", "lib/pipeline"},
    r"\bgraph_copies\s*=": {"lib/partition", "lib/pipeline"},
    r"\bPartitionOnArena\(": {"lib/partition", "lib/pipeline"},
    r"(?<![\w.>:])Partition\(": {"lib/partition", "lib/pipeline"},
    r"\bRewriteGraphForExecution\(": {"lib/prune", "lib/pipeline"},
    r"\bImportClientGraph\(": {"lib/partition", "lib/pipeline"},
}

SOURCE_RE = re.compile(r"\.(cc|h)$")
EXEMPT_RE = re.compile(r"(_test|_bench|_test_util|_fuzz)\.(cc|h)$")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)


def folder_of(rel):
    parts = rel.split("/")
    if parts[0] == "lib" and len(parts) > 2:
        return "lib/" + parts[1]
    return parts[0]


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def sources(root):
    for top in ("lib", "subcommands", "cli"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if SOURCE_RE.search(name):
                    path = os.path.join(dirpath, name)
                    yield os.path.relpath(path, root)


def check(root):
    problems = []
    for rel in sources(root):
        folder = folder_of(rel)
        exempt = bool(EXEMPT_RE.search(rel)) or "/fuzz/" in rel
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        for kind, header in INCLUDE_RE.findall(text):
            if kind == "<":
                for prefix, owner in THIRD_PARTY.items():
                    if header.startswith(prefix) and folder not in owner:
                        problems.append(
                            f"{rel}: includes <{header}>, which only "
                            f"{' and '.join(sorted(owner))} may include")
                continue
            if exempt or folder == "lib/testing":
                continue
            target = folder_of(header)
            if target == folder or not (target.startswith("lib/") or
                                        target in TOP):
                continue
            if folder in ALLOWED:
                ok = target in ALLOWED[folder]
            else:
                ok = target.startswith("lib/") or target in TOP.get(folder,
                                                                     set())
                ok = ok and target != "lib/testing"
            if not ok:
                problems.append(f'{rel}: includes "{header}": {folder} may '
                                f"not depend on {target}")
        if exempt:
            continue
        code = strip_comments(text)
        for pattern, owners in COMPOSITION.items():
            if folder in owners:
                continue
            for match in re.finditer(pattern, code):
                line = code.count("\n", 0, match.start()) + 1
                problems.append(
                    f"{rel}:{line}: '{match.group(0)}' composes the stages, "
                    f"which only {' and '.join(sorted(owners))} do")
    return problems


def self_test():
    """The checker finds each kind of violation in a small made-up tree."""
    import tempfile
    files = {
        "lib/prune/a.cc": '#include "lib/place/place.h"\n',
        "lib/exec/b.cc": "#include <leveldb/table.h>\n",
        "subcommands/c.cc": "void F(Graph* g) { ReplicateSmallConstants(g); }\n",
        "lib/exec/d_test.cc": '#include "lib/io/graph_io.h"\n',
        "lib/pipeline/e.cc": "void G(Graph* g) { Partition(g, o); }\n",
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        found = check(root)
    want = ["lib/prune/a.cc", "lib/exec/b.cc", "subcommands/c.cc:1"]
    missing = [w for w in want if not any(p.startswith(w) for p in found)]
    if missing or len(found) != len(want):
        print("check_layers: self-test failed: found", found)
        return False
    return True


def main():
    if not self_test():
        return 1
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    problems = check(os.path.abspath(root))
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} violation(s) of "
              "docs/ARCHITECTURE.md's layering")
        return 1
    print("check_layers: the include graph and the composition points follow "
          "docs/ARCHITECTURE.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
