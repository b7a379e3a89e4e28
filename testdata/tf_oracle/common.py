"""Small helpers shared by the TF oracle's sections."""
import dataclasses
import os
import re

import numpy as np


@dataclasses.dataclass
class Result:
    status: str          # pass, fail or skip
    message: str = ""
    # For the op coverage (coverage.py): the op types of the graph the case
    # ran, and the ops it tests (charged with its failure).
    ops: frozenset = frozenset()
    tested: frozenset = frozenset()


def model_missing(path):
    """A corpus model a case names is not there: a skip, or (CI, which has
    the corpus: DFG_REQUIRE_SHARED=1) a failure."""
    status = "fail" if os.environ.get("DFG_REQUIRE_SHARED") == "1" else "skip"
    return Result(status, f"model file missing: {path}")


def out_file(directory, tensor):
    """Where `dfg run --output-dir` writes a fetched tensor."""
    return os.path.join(directory, re.sub(r"[^A-Za-z0-9._-]", "_", tensor) + ".npy")


def write_npy_feeds(directory, feeds):
    """{tensor: ndarray} -> {tensor: path of its .npy}."""
    os.makedirs(directory, exist_ok=True)
    paths = {}
    for i, (name, value) in enumerate(feeds.items()):
        path = os.path.join(directory, f"feed{i}.npy")
        value = np.asarray(value)
        if value.dtype == object:  # strings: .npy keeps them as fixed bytes
            value = np.array([v.encode() if isinstance(v, str) else v
                              for v in value.ravel()], dtype=bytes).reshape(value.shape)
        np.save(path, value)
        paths[name] = path
    return paths
