#!/usr/bin/env python3
"""Writes a generated GraphDef of N nodes as text (pbtxt) to stdout, for
measuring dfg on big graphs (`dfg info`, `convert`, `dot`; see README's
developer section). No TensorFlow or protobuf module needed.

The graph is the one lib/dot/dot_bench.cc draws: units of 10 nodes (two
Consts, MatMul, BiasAdd, Relu, Sigmoid, Mul, Square, AddV2, Identity with a
control input), 10 units a block, each unit fed by the previous one, in name
scopes block_<b>/unit_<u>/.

  lib/io/make_big_graph.py 1000000 | build/dfg convert -f pb -o /tmp/big.pb
"""
import sys


def node(out, name, op, inputs=(), type_attr="T"):
    out.append('node { name: "%s" op: "%s"' % (name, op))
    for i in inputs:
        out.append(' input: "%s"' % i)
    out.append(' attr { key: "%s" value { type: DT_FLOAT } } }\n' % type_attr)


def main():
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 50000
    write = sys.stdout.write
    out = []
    node(out, "input", "Placeholder", type_attr="dtype")
    count, previous, unit = 1, "input", 0
    while count + 10 <= total:
        s = "block_%d/unit_%d/" % (unit // 10, unit % 10)
        node(out, s + "w", "Const", type_attr="dtype")
        node(out, s + "b", "Const", type_attr="dtype")
        node(out, s + "MatMul", "MatMul", [previous, s + "w"])
        node(out, s + "BiasAdd", "BiasAdd", [s + "MatMul", s + "b"])
        node(out, s + "Relu", "Relu", [s + "BiasAdd"])
        node(out, s + "Sigmoid", "Sigmoid", [s + "BiasAdd"])
        node(out, s + "Mul", "Mul", [s + "Relu", s + "Sigmoid"])
        node(out, s + "Square", "Square", [s + "Mul"])
        node(out, s + "Add", "AddV2", [s + "Mul", s + "Square"])
        node(out, s + "Identity", "Identity", [s + "Add", "^" + s + "Relu"])
        previous = s + "Identity"
        count += 10
        unit += 1
        if len(out) > 100000:
            write("".join(out))
            out = []
    while count < total:  # pad to exactly N nodes
        node(out, "pad_%d" % count, "Const", type_attr="dtype")
        count += 1
    write("".join(out))


if __name__ == "__main__":
    main()
