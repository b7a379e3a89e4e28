#!/usr/bin/env python3
"""Writes the two graphs of bench/restore_bench.sh (plain Python, no TF).

  make_checkpoint_graphs.py DIR [TENSORS] [ROWS]

DIR/save.pbtxt     RandomUniform tensors (seeded) saved by one SaveV2 to the
                   checkpoint prefix DIR/ckpt: `dfg run save.pbtxt --target
                   save` writes DIR/ckpt.index + DIR/ckpt.data-00000-of-00001.
DIR/restore.pbtxt  the same tensors as VariableV2s with the restore ops a
                   tf.compat.v1.train.Saver makes (save/Const fed the prefix,
                   save/RestoreV2, save/Assign_N, save/restore_all), so
                   `dfg run restore.pbtxt --checkpoint DIR/ckpt --fetch s`
                   restores them as TensorFlow's Saver.restore does; `s` is
                   the element count of every variable (int32 scalars, cheap).

Default: 64 float tensors of 4096x1024 (16 MiB each, 1 GiB in all).
"""
import sys


def strings(name, values, scalar=False):
    vals = "".join(' string_val: "%s"' % v for v in values)
    shape = "" if scalar else "dim { size: %d }" % len(values)
    return ('node { name: "%s" op: "Const" attr { key: "dtype" value { type: '
            'DT_STRING } } attr { key: "value" value { tensor { dtype: '
            'DT_STRING tensor_shape { %s }%s } } } }\n' % (name, shape, vals))


def dtypes(n):
    return ('attr { key: "dtypes" value { list { %s } } }' %
            " ".join(["type: DT_FLOAT"] * n))


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
    cols = 1024
    names = ["layer_%d/kernel" % i for i in range(n)]
    shape_attr = ('attr { key: "shape" value { shape { dim { size: %d } '
                  'dim { size: %d } } } }' % (rows, cols))
    float_attr = 'attr { key: "dtype" value { type: DT_FLOAT } }'

    save = [strings("prefix", [out + "/ckpt"], scalar=True),
            strings("names", names), strings("slices", [""] * n),
            'node { name: "shape" op: "Const" attr { key: "dtype" value { '
            'type: DT_INT32 } } attr { key: "value" value { tensor { dtype: '
            'DT_INT32 tensor_shape { dim { size: 2 } } int_val: %d int_val: '
            '%d } } } }\n' % (rows, cols)]
    for i in range(n):
        save.append(
            'node { name: "r_%02d" op: "RandomUniform" input: "shape" %s '
            'attr { key: "T" value { type: DT_INT32 } } attr { key: "seed" '
            'value { i: 1 } } attr { key: "seed2" value { i: %d } } }\n' %
            (i, float_attr, i + 1))
    save.append('node { name: "save" op: "SaveV2" input: "prefix" '
                'input: "names" input: "slices" %s %s }\n' %
                (" ".join('input: "r_%02d"' % i for i in range(n)),
                 dtypes(n)))
    with open(out + "/save.pbtxt", "w") as f:
        f.write("".join(save))

    restore = [strings("save/Const", ["model"], scalar=True),
               strings("save/RestoreV2/tensor_names", names),
               strings("save/RestoreV2/shape_and_slices", [""] * n),
               'node { name: "save/RestoreV2" op: "RestoreV2" input: '
               '"save/Const" input: "save/RestoreV2/tensor_names" input: '
               '"save/RestoreV2/shape_and_slices" %s }\n' % dtypes(n)]
    for i, name in enumerate(names):
        restore.append(
            'node { name: "%s" op: "VariableV2" %s %s attr { key: '
            '"container" value { s: "" } } attr { key: "shared_name" value '
            '{ s: "" } } }\n' % (name, float_attr, shape_attr))
        restore.append(
            'node { name: "save/Assign_%d" op: "Assign" input: "%s" input: '
            '"save/RestoreV2:%d" attr { key: "T" value { type: DT_FLOAT } } '
            'attr { key: "validate_shape" value { b: true } } attr { key: '
            '"use_locking" value { b: true } } }\n' % (i, name, i))
        restore.append(
            'node { name: "size_%d" op: "Size" input: "%s" attr { key: "T" '
            'value { type: DT_FLOAT } } attr { key: "out_type" value { type: '
            'DT_INT32 } } }\n' % (i, name))
    restore.append('node { name: "save/restore_all" op: "NoOp" %s }\n' %
                   " ".join('input: "^save/Assign_%d"' % i for i in range(n)))
    restore.append('node { name: "s" op: "AddN" %s attr { key: "N" value { '
                   'i: %d } } attr { key: "T" value { type: DT_INT32 } } }\n' %
                   (" ".join('input: "size_%d"' % i for i in range(n)), n))
    with open(out + "/restore.pbtxt", "w") as f:
        f.write("".join(restore))


if __name__ == "__main__":
    main()
