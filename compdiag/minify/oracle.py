"""One test of a graph against "the same failure": torch only.

The minifier's queries and the generated repro share this module: `compdiag minify` copies
the block between the markers into repro.py verbatim, after the same blocks of
formats/signature.py (what "the same failure" means) and formats/tolerances.py, so the repro
judges a failure exactly as the minifier did. The block needs nothing but torch, the standard
library and those two blocks."""

from compdiag.formats.signature import signature
from compdiag.formats.tolerances import default_tol

# --- compdiag oracle begin ---
import contextlib
import copy
import io

import torch


def _clone(args):
    return [a.detach().clone().requires_grad_(a.requires_grad)
            if isinstance(a, torch.Tensor) else a for a in args]


def _leaves(value):
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _leaves(v)]
    return [value]


def _to64(args):
    return [a.detach().double() if isinstance(a, torch.Tensor) and a.is_floating_point()
            else a for a in args]


def mismatch(ref, res, ref64, tol=None):
    """Why compiled `res` disagrees with eager `ref` (fp64 reference `ref64`), or None."""
    from torch._dynamo.utils import same

    refs, ress = _leaves(ref), _leaves(res)
    r64s = _leaves(ref64) if ref64 is not None else [None] * len(refs)
    if len(refs) != len(ress):
        return f"{len(refs)} eager outputs vs {len(ress)} compiled"
    for i, (r, c, r64) in enumerate(zip(refs, ress, r64s)):
        if not isinstance(r, torch.Tensor) or not isinstance(c, torch.Tensor):
            if r != c:
                return f"output {i}: {r!r} vs {c!r}"
            continue
        if r.shape != c.shape or r.dtype != c.dtype:
            return f"output {i}: eager {r.dtype}{list(r.shape)} vs compiled {c.dtype}{list(c.shape)}"
        r, c = r.detach(), c.detach()
        if not (r.is_floating_point() or r.is_complex()):
            if not torch.equal(r, c):
                return f"output {i}: integer/bool values differ"
            continue
        if bool((torch.isnan(r) != torch.isnan(c)).any()) or \
                bool((torch.isinf(r) != torch.isinf(c)).any()):
            return f"output {i}: NaN/Inf pattern differs"
        t = tol if tol is not None else default_tol(r.dtype)
        fp64 = r64.detach() if isinstance(r64, torch.Tensor) else None
        if fp64 is not None and (fp64.shape != r.shape or bool(
                (torch.isfinite(r) & ~torch.isfinite(fp64)).any())):
            # float64 lost values eager computed (a graph fed float32 values it compares
            # exactly, as a backward graph's saved ones): no reference, eager's alone judges
            fp64 = None
        if not same(r, c, fp64_ref=fp64, tol=t, equal_nan=True, log_error=lambda *a, **k: None):
            err = float((r.double() - c.double()).abs().max()) if r.numel() else 0.0
            return f"output {i}: max abs error {err:.3g} beyond tolerance {t:g}"
    return None


def _with_grads(fn, args, grads):
    """`fn`'s outputs, then (when `grads` lists input positions) the gradients of those
    inputs: backward from every output that needs grad, with gradient ones (a loss's own)."""
    args = _clone(args)
    if not grads:
        return fn(*args)
    wrt = []
    for i in grads:
        if isinstance(args[i], torch.Tensor) and args[i].is_floating_point():
            args[i] = args[i].detach().requires_grad_(True)
            wrt.append(args[i])
    out = fn(*args)
    outs = [o for o in _leaves(out) if isinstance(o, torch.Tensor) and o.requires_grad]
    if not outs or not wrt:
        return [out, []]
    return [out, list(torch.autograd.grad(outs, wrt, [torch.ones_like(o) for o in outs],
                                          allow_unused=True))]


def run_case(module, args, kind, config, grad_enabled=False, tol=None, compile_fn=None,
             dynamic=False, grads=()):
    """Run `module` eagerly and compiled with Inductor under `config` (a dict of
    torch._inductor.config patches). `dynamic`: the graph was captured with symbolic sizes
    (placeholders s0, s1, ...), so it goes through torch.compile(dynamic=True) to get them
    again (compile_fx given plain ints compiles a static graph, where a failure of symbolic
    shapes does not happen). `grads`: positions of inputs whose gradients are compared too
    (a gradient the forward's saved values made wrong: the backward alone computes it
    right from them). Returns one of
      ("invalid", why)      eager itself fails or is non-deterministic: not a test at all
      ("pass", None)        compiled agrees with eager (accuracy) or simply works
      ("fail", signature)   (exception type, normalised message), or ("AccuracyMismatch", "")
    """
    import torch._dynamo

    grads = list(grads or ())
    grad_enabled = grad_enabled or bool(grads)
    # an FX module prints its own traceback of an error to stderr before raising it: eager
    # failing on a candidate (speculative 1x1 inputs) is an answer here, not the user's to
    # read (probes48b timm_mambaout: "mat1 and mat2 shapes cannot be multiplied" printed)
    with torch.set_grad_enabled(grad_enabled), contextlib.redirect_stderr(io.StringIO()):
        try:
            ref = _with_grads(module, args, grads)
            if kind == "accuracy":
                ref2 = _with_grads(module, args, grads)
                if mismatch(ref, ref2, None, tol=0.0) is not None:
                    return ("invalid", "eager is non-deterministic")
        except Exception as exc:  # noqa: BLE001
            return ("invalid", "eager fails: %s: %s" % signature(exc))
    ref64 = None
    if kind == "accuracy":
        try:
            with torch.set_grad_enabled(bool(grads)):
                ref64 = _with_grads(copy.deepcopy(module).to(torch.float64), _to64(args),
                                    grads)
        except Exception:  # noqa: BLE001 - some graphs have no float64 kernels
            ref64 = None
    torch._dynamo.reset()
    try:
        with torch._inductor.config.patch(config), torch.set_grad_enabled(grad_enabled):
            # Inductor's entry point, exactly as Dynamo calls it with the captured graph.
            from torch._inductor.compile_fx import compile_fx

            # through Dynamo where AOTAutograd must see symbolic sizes or inputs that need
            # gradients (compile_fx alone compiles for inference)
            compiled = torch.compile(module, backend=compile_fn or compile_fx,
                                     dynamic=bool(dynamic)) \
                if dynamic or grads else (compile_fn or compile_fx)(module, _clone(args))
            res = _with_grads(compiled, args, grads)
    except Exception as exc:  # noqa: BLE001
        return ("fail", signature(exc))
    finally:
        torch._dynamo.reset()
    if kind == "accuracy":
        why = mismatch(ref, res, ref64, tol)
        return ("fail", ("AccuracyMismatch", "")) if why else ("pass", None)
    return ("pass", None)


def run_dynamo_case(module, args, kind, config, grad_enabled=False, tol=None, **_):
    """A failure Dynamo raised: trace `module` with torch.compile (backend "eager": no backend
    compile) and call it. ("fail", signature) when it raises, ("pass", None) when not."""
    import torch._dynamo

    torch._dynamo.reset()
    try:
        with torch.set_grad_enabled(grad_enabled):
            torch.compile(module, backend="eager")(*_clone(args))
    except Exception as exc:  # noqa: BLE001
        return ("fail", signature(exc))
    finally:
        torch._dynamo.reset()
    return ("pass", None)
# --- compdiag oracle end ---
