"""An output of a compiled graph that is a view of another output gets its incoming gradient
through that output's in the compiled world (AOTAutograd rebuilds it from its base outside
the graph), so the eager replay does not pass it again (capture/grad_accuracy.eager_grads).
probes33e mdn_mixture_ok: a compiled forward returning a MixtureSameFamily (Normal's
`broadcast_tensors(loc, scale)` views among the outputs) was a gradient "miscompile" with a
relative error of 0.505 on a correct program."""

from __future__ import annotations

import torch

from compdiag.capture.grad_accuracy import Modes, eager_grads


def _twice(w):
    v = w * 2
    loc, = torch.broadcast_tensors(v)  # v itself: nothing to broadcast
    return v, loc


def _view(w):
    v = w * 2
    return v, v.view(3)


def test_an_alias_outputs_gradient_is_not_counted_twice():

    w = torch.ones(3, requires_grad=True)
    g_view = torch.full((3,), 1.0)
    g_base_total = torch.full((3,), 2.0) + g_view  # the base's own 2.0, plus the view's
    for fn in (_twice, _view):
        got = eager_grads(fn, [w], [True], {0: g_base_total, 1: g_view},
                          torch.random.get_rng_state(), Modes(grad=True))
        assert torch.allclose(got[0], 2 * g_base_total), (fn.__name__, got)  # d(2w)/dw once
