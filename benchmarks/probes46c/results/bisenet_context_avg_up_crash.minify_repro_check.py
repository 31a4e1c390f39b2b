#!/usr/bin/env python3
"""The full check of a minimal repro written by `compdiag minify` (the plain one: repro.py).

Failure: compile_error (inductor_codegen) - AssertionError:
    (no message)
Captured with torch 2.13.0+cpu (run 1, graph 0/0); 1 of 421
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
KIND = 'compile_error'
STAGE = 'inductor_codegen'
EXPECTED = ('AssertionError', '')
GRAD_ENABLED = False
TOL = None              # None: torch._dynamo.utils.same's per-dtype tolerance
DYNAMIC = False          # captured with symbolic sizes: compiled with dynamic=True
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


def run_case(module, args, kind, config, grad_enabled=False, tol=None, compile_fn=None,
             dynamic=False):
    """Run `module` eagerly and compiled with Inductor under `config` (a dict of
    torch._inductor.config patches). `dynamic`: the graph was captured with symbolic sizes
    (placeholders s0, s1, ...), so it goes through torch.compile(dynamic=True) to get them
    again (compile_fx given plain ints compiles a static graph, where a failure of symbolic
    shapes does not happen). Returns one of
      ("invalid", why)      eager itself fails or is non-deterministic: not a test at all
      ("pass", None)        compiled agrees with eager (accuracy) or simply works
      ("fail", signature)   (exception type, normalised message), or ("AccuracyMismatch", "")
    """
    import torch._dynamo

    with torch.set_grad_enabled(grad_enabled):
        try:
            ref = module(*_clone(args))
            if kind == "accuracy":
                ref2 = module(*_clone(args))
                if mismatch(ref, ref2, None, tol=0.0) is not None:
                    return ("invalid", "eager is non-deterministic")
        except Exception as exc:  # noqa: BLE001
            return ("invalid", "eager fails: %s: %s" % signature(exc))
    ref64 = None
    if kind == "accuracy":
        try:
            with torch.no_grad():
                ref64 = copy.deepcopy(module).to(torch.float64)(*_to64(args))
        except Exception:  # noqa: BLE001 - some graphs have no float64 kernels
            ref64 = None
    torch._dynamo.reset()
    try:
        with torch._inductor.config.patch(config), torch.set_grad_enabled(grad_enabled):
            # Inductor's entry point, exactly as Dynamo calls it with the captured graph.
            from torch._inductor.compile_fx import compile_fx

            compiled = torch.compile(module, backend=compile_fn or compile_fx, dynamic=True) \
                if dynamic else (compile_fn or compile_fx)(module, _clone(args))
            res = compiled(*_clone(args))
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

    def forward(self, convert_element_type_1, index_put_4, full_default_8, unsqueeze_24):
        index_put_5 = torch.ops.aten.index_put.default(full_default_8, [None, None, unsqueeze_24, convert_element_type_1], index_put_4, True);  full_default_8 = unsqueeze_24 = convert_element_type_1 = index_put_4 = None
        return (index_put_5,)



def make_inputs():
    return [
        torch.tensor([0, 0, 0, 0], dtype=torch.int64).reshape([4]),  # convert_element_type_1
        torch.tensor([-0.000158112175995484, 4.805078060599044e-05, -2.287443021486979e-05,
            0.00014785618986934423, -0.0002331496507395059, 0.00011918435484403744,
            -6.801745621487498e-05, 5.747354225604795e-05, -0.0002839649678207934,
            7.687522884225473e-05, 0.00010003475472331047, 2.0383526134537533e-05,
            -0.00013426689838524908, 3.2751569960964844e-05, -0.00010692435171222314,
            -0.00014307544915936887, 0.00012273424363229424, 4.081794759258628e-05,
            -0.00029266916681081057, -0.00016973903984762728, 0.00019157251517754048,
            7.03979458194226e-05, 0.00015181693015620112, -0.00018624136282596737,
            0.0002316818427061662, -0.00023316493025049567, 0.00026308224187232554,
            -3.102077971561812e-05, 6.756601214874536e-05, -1.157364749815315e-05,
            0.0002497150271665305, -0.00012936163693666458, -0.00016868466627784073,
            -0.00012688238348346204, 0.0002942846913356334, 0.0001055381289916113,
            -7.82682400313206e-06, 0.0003394521481823176, -4.193531640339643e-05,
            0.0002903791319113225, 0.0001146670983871445, 0.00024080976436380297,
            9.033894457388669e-05, 0.00023603159934282303, -8.622094173915684e-05,
            0.00010138009383808821, -0.00010789629595819861, -4.279288259567693e-05,
            -7.988740981090814e-05, 0.0001791481045074761, 5.495702498592436e-05,
            -0.0001510431175120175, -0.00017157295951619744, 0.00022194339544512331,
            -0.0001412577403243631, -5.208996662986465e-05, -0.00014932246995158494,
            -0.0001599408860784024, 0.00031393865356221795, 6.0733269492629915e-05,
            -6.164183287182823e-05, 4.4021595385856926e-05, 0.00012797571253031492,
            -8.482219709549099e-05], dtype=torch.float32).reshape([4, 1, 4, 4]),  # index_put_4
        torch.tensor([0.0, 0.0, 0.0, 0.0], dtype=torch.float32).reshape([4, 1, 1, 1]),  # full_default_8
        torch.tensor([0, 0, 0, 0], dtype=torch.int64).reshape([4, 1]),  # unsqueeze_24
    ]


def check():
    """(outcome, detail): outcome is "pass", "fail" or "invalid" (see run_case)."""
    gm = torch.fx.symbolic_trace(Repro())
    run = run_dynamo_case if STAGE == "dynamo" else run_case
    more = {"dynamic": True} if DYNAMIC and run is run_case else {}
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
