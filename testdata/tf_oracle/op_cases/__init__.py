"""Per-op cases of the TF oracle's `ops` section, one module per op family.

Each module defines `cases()`, yielding `OpCase`s (op_case.py says how a case
is written). ops_diff.py imports every module of this package.
"""
