#!/usr/bin/env python3
"""The full check of a minimal repro written by `compdiag minify` (the plain one: repro.py).

Failure: accuracy (accuracy) - AccuracyMismatch:
    output 0: max abs error 2.56, max rel error 248 beyond tolerance 0.0001
      (torch._dynamo.utils.same rules)
Captured with torch 2.13.0+cpu (run 1, graph 0/0); 6 of 7
nodes left, 1-minimal (no single node can be cut).

    python repro_check.py        exit 1 while the bug is present, 0 once it is fixed
                         (2: it fails differently, 3: eager itself fails)
    pytest repro_check.py        the same check as a test (test_repro)

Needs only torch.
"""
import os
import sys

import torch
import torch.fx
import torch._inductor.config

TORCH_VERSION = '2.13.0+cpu'   # the version the failure was captured with
KIND = 'accuracy'
STAGE = 'accuracy'
EXPECTED = ('AccuracyMismatch', '')
GRAD_ENABLED = False
TOL = None              # None: torch._dynamo.utils.same's per-dtype tolerance
DYNAMIC = False          # captured with symbolic sizes: compiled with dynamic=True
GRADS = []          # positions of inputs whose gradients are compared too
# Inductor config the failure needs (patched only while compiling):
CONFIG = {
}
HERE = os.path.dirname(os.path.abspath(__file__))
nan, inf = float("nan"), float("inf")


def load(path, dtype, shape, stride=None):
    """A tensor from raw bytes (no pickle)."""
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0:
        t = torch.empty(shape, dtype=dtype)
    else:
        with open(os.path.join(HERE, path), "rb") as f:
            t = torch.frombuffer(bytearray(f.read()), dtype=dtype).reshape(shape)
    return strided(t, stride)


def strided(t, stride):
    if stride is None or list(t.stride()) == list(stride):
        return t
    return torch.empty_strided(t.shape, stride, dtype=t.dtype).copy_(t)

import math
import operator

# --- compdiag oracle begin ---
import re

# Dynamo's wrappers of the real error: a backend's, Inductor's, and a fake-tensor run's
# (TorchRuntimeError, and the Unsupported it chains when an op failed on fake tensors).
_WRAPPERS = ("BackendCompilerFailed", "InductorError", "TorchRuntimeError", "Unsupported")
_CONTEXT_WRAPPERS = ("TorchRuntimeError",)  # raised inside `except`, not `from`
_NORMALISE = [
    (re.compile(r"0x[0-9a-fA-F]+"), "0x?"),
    (re.compile(r"(?:[A-Za-z]:)?(?:/[\w.+\-@]+)+/?"), "<path>"),
    (re.compile(r"\b[0-9a-z]{20,}\b"), "<hash>"),
    (re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?"), "N"),
    (re.compile(r"\s+"), " "),
]


def innermost(exc):
    """Unwrap Dynamo's and Inductor's wrappers to the real error (a wrapper with no cause is
    itself the error: an Unsupported graph break, say)."""
    seen = set()
    while type(exc).__name__ in _WRAPPERS and id(exc) not in seen:
        seen.add(id(exc))
        inner = getattr(exc, "inner_exception", None) or exc.__cause__
        if inner is None and type(exc).__name__ in _CONTEXT_WRAPPERS:
            inner = exc.__context__
        if inner is None:
            break
        exc = inner
    return exc


def normalise_message(message):
    """The first non-empty line, with addresses, paths, hashes and numbers stripped."""
    lines = [ln.strip() for ln in str(message).splitlines() if ln.strip()]
    text = lines[0] if lines else ""
    for pattern, repl in _NORMALISE:
        text = pattern.sub(repl, text)
    return text.strip()[:300]


def signature(exc):
    """(exception type, normalised message) of the innermost error: the failure's identity."""
    exc = innermost(exc)
    return (type(exc).__name__, normalise_message(str(exc)))


DTYPE_TOL = {"float16": 1e-2, "bfloat16": 1e-2, "float32": 1e-4, "float64": 1e-7,
             # float8: one step of the format's mantissa (e4m3: 2**-3, e5m2: 2**-2)
             "float8_e4m3fn": 0.125, "float8_e4m3fnuz": 0.125, "float8_e5m2": 0.25,
             "float8_e5m2fnuz": 0.25}
OTHER_TOL = 1e-4  # every other dtype


def default_tol(dtype):
    """same()'s `tol` for a torch dtype (or its name) when the user gave none."""
    return DTYPE_TOL.get(str(dtype).replace("torch.", ""), OTHER_TOL)


import copy

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
    with torch.set_grad_enabled(grad_enabled):
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


class Repro(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, l_self_parameters_baseline_, feats):
        log_rate = feats[(Ellipsis, -1)];  feats = None
        exp = log_rate.exp()
        rate = exp + l_self_parameters_baseline_;  exp = l_self_parameters_baseline_ = None
        mean = rate.mean(dim = -1, keepdim = True)
        rel = rate - mean;  rate = mean = None
        stack = torch.stack([rel, log_rate], dim = -1);  rel = log_rate = None
        return (stack,)



def make_inputs():
    return [
        torch.tensor([-0.3266853094100952, -0.44611650705337524, -0.11180424690246582,
            0.21911972761154175, -0.6834182739257812, -0.8050488829612732,
            0.3251199424266815, -0.1441095620393753, 1.049540638923645, -0.10133504122495651,
            -0.20165598392486572, 0.9170812368392944, 0.20825326442718506,
            0.48582884669303894, -0.09176307171583176, 0.30785462260246277], dtype=torch.float32).reshape([16]),  # l_self_parameters_baseline_
        torch.tensor([-0.46846067905426025, -0.45143046975135803, 0.05204449221491814,
            0.3196178078651428, 0.2851032018661499, 0.5303360223770142, 0.7177062034606934,
            -0.96171635389328, -0.23189646005630493, 0.7588042616844177,
            -0.43976354598999023, -0.7798234224319458, -0.5114309787750244,
            0.709622859954834, 0.08129940181970596, -0.44971850514411926, 0.958207368850708,
            -0.6867083311080933, 0.045196957886219025, 1.1469815969467163,
            -0.13573867082595825, -0.31007784605026245, 0.5059083700180054,
            -0.5340776443481445, -0.593120813369751, 0.24822679162025452, 0.3839634954929352,
            0.6196463108062744, -0.5790814161300659, 0.2840436100959778, 0.6417913436889648,
            -0.40363550186157227, 0.28373584151268005, 1.0001410245895386,
            -0.3674311935901642, -0.018870174884796143, 0.8461709022521973,
            0.576951265335083, -0.22022485733032227, -0.17204663157463074,
            -0.14191415905952454, -1.1569336652755737, -0.5059337019920349,
            0.05791458487510681, 0.4475414752960205, 1.0314640998840332,
            -0.10829438269138336, 0.5971711874008179, 0.13542722165584564,
            -0.34168118238449097, -0.06695610284805298, 0.21422386169433594,
            1.269235610961914, -0.6377475261688232, 0.16299623250961304,
            -0.41812264919281006, 0.8708450794219971, -0.22273960709571838,
            -0.7025851607322693, 0.12315230071544647, 0.6976815462112427,
            -0.4997767508029938, 0.5372074246406555, 0.5966497659683228], dtype=torch.float32).reshape([2, 16, 2]),  # feats
    ]


def check():
    """(outcome, detail): outcome is "pass", "fail" or "invalid" (see run_case)."""
    gm = torch.fx.symbolic_trace(Repro())
    run = run_dynamo_case if STAGE == "dynamo" else run_case
    more = {"dynamic": True} if DYNAMIC and run is run_case else {}
    if GRADS:
        more["grads"] = GRADS
    return run(gm, make_inputs(), KIND, CONFIG, grad_enabled=GRAD_ENABLED, tol=TOL, **more)


def main():
    if torch.__version__ != TORCH_VERSION:
        print(f"note: captured with torch {TORCH_VERSION}, running {torch.__version__}")
    try:
        outcome, detail = check()
    except Exception as exc:  # noqa: BLE001 - a broken repro is not "the bug is present"
        print(f"the repro itself failed: {type(exc).__name__}: {exc}")
        return 2
    if outcome == "pass":
        print("fixed: compiled graph works and matches eager")
        return 0
    if outcome == "invalid":
        print(f"eager itself fails: {detail}")
        return 3
    if tuple(detail) == tuple(EXPECTED):
        print(f"bug present: {detail[0]}: {detail[1]}")
        return 1
    print(f"fails differently: {detail} (expected {EXPECTED})")
    return 2


def test_repro():
    outcome, detail = check()
    assert outcome == "pass", f"{outcome}: {detail}"


if __name__ == "__main__":
    sys.exit(main())
