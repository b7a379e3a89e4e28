"""Fused RNN ops: LSTMBlockCell(Grad), BlockLSTM(V2), BlockLSTMGrad(V2),
GRUBlockCell(Grad) (tf.raw_ops; TensorFlow's CPU kernels: half and float for
the LSTM ops, float for GRU). BlockLSTM leaves i, f, o, ci and co unset past
seq_len_max, so a shorter sequence fetches only cs and h. A seq_len_max past
the sequence aborts TensorFlow 2.21 (a CHECK in Tensor::Slice): no case."""
import numpy as np

from op_case import OpCase, data

F32, F16 = np.float32, np.float16
HALF_TOL = dict(rtol=1e-2, atol=1e-2)


def _case(name, ops, fn, inputs, dynamic=False, fetch=None, **kw):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    def build():
        phs = [tf.compat.v1.placeholder(v.dtype, None if dynamic else v.shape,
                                        name=f"in{i}") for i, v in enumerate(inputs)]
        out = fn(*phs)
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        if fetch is not None:
            out = [out[k] for k in fetch]
        return out, dict(zip(phs, inputs))
    return OpCase(name, ops, build, **kw)


def _tol(dtype):
    return HALF_TOL if dtype == F16 else {}


def _lstm_weights(name, dtype, batch, inp, cell, scale=0.5):
    return [data(name + "/cs", dtype, (batch, cell), "unit"),
            data(name + "/h", dtype, (batch, cell), "unit"),
            (data(name + "/w", np.float64, (inp + cell, 4 * cell), "unit") * scale).astype(dtype),
            data(name + "/wci", dtype, (cell,), "unit"),
            data(name + "/wcf", dtype, (cell,), "unit"),
            data(name + "/wco", dtype, (cell,), "unit"),
            data(name + "/b", dtype, (4 * cell,), "unit")]


def _cell_cases(R):
    for dtype in (F32, F16):
        for peep, clip, fb in ((False, 3.0, 1.0), (True, 0.5, 0.0), (True, -1.0, 2.0)):
            n = f"LSTMBlockCell/{np.dtype(dtype).name}[3,4,5]/peep={peep},clip={clip}"
            ins = [data(n + "/x", dtype, (3, 4), "small")] + _lstm_weights(n, dtype, 3, 4, 5)
            yield _case(n, ["LSTMBlockCell"], lambda *a, p=peep, c=clip, f=fb: R.LSTMBlockCell(
                x=a[0], cs_prev=a[1], h_prev=a[2], w=a[3], wci=a[4], wcf=a[5], wco=a[6],
                b=a[7], forget_bias=f, cell_clip=c, use_peephole=p), ins, **_tol(dtype))
            n = f"LSTMBlockCellGrad/{np.dtype(dtype).name}[3,4,5]/peep={peep},clip={clip}"
            ins = ([data(n + "/x", dtype, (3, 4), "small")] + _lstm_weights(n, dtype, 3, 4, 5)
                   + [data(n + f"/{k}", dtype, (3, 5), "unit") for k in range(8)])
            yield _case(n, ["LSTMBlockCellGrad"], lambda *a, p=peep: R.LSTMBlockCellGrad(
                x=a[0], cs_prev=a[1], h_prev=a[2], w=a[3], wci=a[4], wcf=a[5], wco=a[6],
                b=a[7], i=a[8], cs=a[9], f=a[10], o=a[11], ci=a[12], co=a[13],
                cs_grad=a[14], h_grad=a[15], use_peephole=p), ins, **_tol(dtype))
    n = "LSTMBlockCell/float32[0,4,5]"
    ins = [np.zeros((0, 4), F32)] + [np.zeros(v.shape, F32) for v in _lstm_weights(n, F32, 0, 4, 5)]
    yield _case(n, ["LSTMBlockCell"], lambda *a: R.LSTMBlockCell(
        x=a[0], cs_prev=a[1], h_prev=a[2], w=a[3], wci=a[4], wcf=a[5], wco=a[6], b=a[7]),
        ins, dynamic=True, expect_error="cs_prev_tensor is empty")
    n = "LSTMBlockCell/float32[3,4,5]/bad_w"
    ins = [data(n + "/x", F32, (3, 3), "small")] + _lstm_weights(n, F32, 3, 4, 5)
    yield _case(n, ["LSTMBlockCell"], lambda *a: R.LSTMBlockCell(
        x=a[0], cs_prev=a[1], h_prev=a[2], w=a[3], wci=a[4], wcf=a[5], wco=a[6], b=a[7]),
        ins, dynamic=True, expect_error=r"w.dim_size\(0\) != input_size \+ cell_size: 9 vs. 8")


def _block(R, v2, peep, clip):
    op = R.BlockLSTMV2 if v2 else R.BlockLSTM

    def fn(s, x, cs, h, w, wci, wcf, wco, b):
        kw = dict(seq_len_max=s, x=x, cs_prev=cs, h_prev=h, w=w, wci=wci, wcf=wcf,
                  wco=wco, b=b, cell_clip=clip, use_peephole=peep)
        if not v2:
            kw["forget_bias"] = 0.5
        return op(**kw)
    return fn


def _block_inputs(n, dtype, time, batch, inp, cell, steps):
    return ([np.array(steps, np.int64), data(n + "/x", dtype, (time, batch, inp), "small")]
            + _lstm_weights(n, dtype, batch, inp, cell))


def _block_cases(R):
    for v2 in (False, True):
        name = "BlockLSTMV2" if v2 else "BlockLSTM"
        for dtype in (F32, F16):
            for peep, clip in ((False, 3.0 if not v2 else 0.0), (True, 0.3)):
                n = f"{name}/{np.dtype(dtype).name}[4,2,3,5]/peep={peep},clip={clip}"
                yield _case(n, [name], _block(R, v2, peep, clip),
                            _block_inputs(n, dtype, 4, 2, 3, 5, 4), **_tol(dtype))
        n = f"{name}/float32[5,3,2,4]/seq_len_max=2"
        yield _case(n, [name], _block(R, v2, True, 0.0), _block_inputs(n, F32, 5, 3, 2, 4, 2),
                    fetch=[1, 6])
        for shape in ((0, 2, 3, 4), (3, 0, 3, 4)):
            n = f"{name}/float32{list(shape)}".replace(" ", "")
            yield _case(n, [name], _block(R, v2, False, 0.0),
                        _block_inputs(n, F32, *shape, shape[0]))
        n = f"{name}/float32[3,2,3,4]/bad_b"
        ins = _block_inputs(n, F32, 3, 2, 3, 4, 3)
        ins[8] = ins[8][:15]
        yield _case(n, [name], _block(R, v2, False, 0.0), ins, dynamic=True,
                    expect_error=r"b.dim_size\(0\) != cell_size \* 4: 15 vs. 16")


def _block_grad(R, v2, peep):
    fwd_op = R.BlockLSTMV2 if v2 else R.BlockLSTM
    grad_op = R.BlockLSTMGradV2 if v2 else R.BlockLSTMGrad

    def fn(s, x, cs, h, w, wci, wcf, wco, b, cs_grad, h_grad):
        fwd = fwd_op(seq_len_max=s, x=x, cs_prev=cs, h_prev=h, w=w, wci=wci, wcf=wcf,
                     wco=wco, b=b, use_peephole=peep)
        return grad_op(seq_len_max=s, x=x, cs_prev=cs, h_prev=h, w=w, wci=wci, wcf=wcf,
                       wco=wco, b=b, i=fwd.i, cs=fwd.cs, f=fwd.f, o=fwd.o, ci=fwd.ci,
                       co=fwd.co, h=fwd.h, cs_grad=cs_grad, h_grad=h_grad,
                       use_peephole=peep)
    return fn


def _fed_grad(R, v2, peep):
    grad_op = R.BlockLSTMGradV2 if v2 else R.BlockLSTMGrad

    def fn(s, x, cs, h, w, wci, wcf, wco, b, cs_grad, h_grad, *a):
        return grad_op(seq_len_max=s, x=x, cs_prev=cs, h_prev=h, w=w, wci=wci, wcf=wcf,
                       wco=wco, b=b, i=a[0], cs=a[1], f=a[2], o=a[3], ci=a[4], co=a[5],
                       h=a[6], cs_grad=cs_grad, h_grad=h_grad, use_peephole=peep)
    return fn


def _block_grad_cases(R):
    for v2 in (False, True):
        name = "BlockLSTMGradV2" if v2 else "BlockLSTMGrad"
        fwd = "BlockLSTMV2" if v2 else "BlockLSTM"
        for peep, steps in ((False, 4), (True, 4), (True, 2)):
            n = f"{name}/float32[4,2,3,5]/peep={peep},steps={steps}"
            ins = (_block_inputs(n, F32, 4, 2, 3, 5, steps)
                   + [data(n + "/csg", F32, (4, 2, 5), "unit"),
                      data(n + "/hg", F32, (4, 2, 5), "unit")])
            yield _case(n, [name, fwd], _block_grad(R, v2, peep), ins)
        # Half: the forward activations fed, not computed (a half ulp of
        # difference there grows through the backward pass past the
        # oracle's fixed half tolerance).
        for peep, steps in ((False, 3), (True, 2)):
            n = f"{name}/float16[3,2,3,4]/peep={peep},steps={steps}"
            ins = (_block_inputs(n, F16, 3, 2, 3, 4, steps)
                   + [data(n + f"/g{k}", F16, (3, 2, 4), "unit") for k in range(9)])
            yield _case(n, [name], _fed_grad(R, v2, peep), ins)
        n = f"{name}/float32[3,2,3,4]/bad_w"
        ins = (_block_inputs(n, F32, 3, 2, 3, 4, 3)
               + [data(n + "/csg", F32, (3, 2, 4)), data(n + "/hg", F32, (3, 2, 4))])
        grad_op = R.BlockLSTMGradV2 if v2 else R.BlockLSTMGrad
        ins7 = [data(n + f"/a{k}", F32, (3, 2, 4)) for k in range(7)]
        ins[4] = np.concatenate([ins[4], ins[4][:1]])
        yield _case(n, [name], lambda s, x, cs, h, w, wci, wcf, wco, b, csg, hg, *a, g=grad_op: g(
            seq_len_max=s, x=x, cs_prev=cs, h_prev=h, w=w, wci=wci, wcf=wcf, wco=wco, b=b,
            i=a[0], cs=a[1], f=a[2], o=a[3], ci=a[4], co=a[5], h=a[6], cs_grad=csg,
            h_grad=hg, use_peephole=False), ins + ins7, dynamic=True,
            expect_error="w matrix rows don't match: 7 vs. 8")


def _gru_inputs(n, batch, inp, cell):
    return [data(n + "/x", F32, (batch, inp), "small"),
            data(n + "/h", F32, (batch, cell), "unit"),
            data(n + "/wru", F32, (inp + cell, 2 * cell), "unit"),
            data(n + "/wc", F32, (inp + cell, cell), "unit"),
            data(n + "/bru", F32, (2 * cell,), "unit"),
            data(n + "/bc", F32, (cell,), "unit")]


def _gru_cases(R):
    cell = lambda x, h, wru, wc, bru, bc: R.GRUBlockCell(x=x, h_prev=h, w_ru=wru, w_c=wc,
                                                        b_ru=bru, b_c=bc)
    for shape in ((3, 4, 5), (1, 2, 1), (0, 2, 3)):
        n = f"GRUBlockCell/float32{list(shape)}".replace(" ", "")
        yield _case(n, ["GRUBlockCell"], cell, _gru_inputs(n, *shape))
        n = f"GRUBlockCellGrad/float32{list(shape)}".replace(" ", "")
        ins = _gru_inputs(n, *shape) + [data(n + "/dh", F32, shape[::2], "unit")]

        def grad(x, h, wru, wc, bru, bc, dh):
            r, u, c, _ = cell(x, h, wru, wc, bru, bc)
            return R.GRUBlockCellGrad(x=x, h_prev=h, w_ru=wru, w_c=wc, b_ru=bru, b_c=bc,
                                      r=r, u=u, c=c, d_h=dh)
        yield _case(n, ["GRUBlockCellGrad", "GRUBlockCell"], grad, ins)
    n = "GRUBlockCell/float32[3,4,5]/bad_h"
    ins = _gru_inputs(n, 3, 4, 5)
    ins[1] = ins[1][:2]
    yield _case(n, ["GRUBlockCell"], cell, ins, dynamic=True,
                expect_error=r"h_prev.dims\(0\) != batch_size: 2 vs. 3")


def cases():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    R = tf.raw_ops
    yield from _cell_cases(R)
    yield from _block_cases(R)
    yield from _block_grad_cases(R)
    yield from _gru_cases(R)
