"""compdiag bisect's probe instrumentation, loaded into every probe through PYTHONPATH.

It never imports torch itself: an import hook patches three torch modules when the program
loads them, and only while COMPDIAG_BISECT_LOG or COMPDIAG_BISECT_CONFIG is set.

- torch._inductor.compiler_bisector: every `disable_subsystem` call (one application of a
  subsystem) is logged with its index, its debug info, the compile id and graph it belongs to;
  `get_config_change` also returns the config change named in COMPDIAG_BISECT_CONFIG (JSON
  {config_name: {field: value}}), so config subsystems need no status file under the cache dir.
- torch._inductor.compile_fx: the Dynamo and AOT graphs given to Inductor are scanned for what
  decides whether a config subsystem can matter (random ops, dtypes, custom ops).
- torch._inductor.graph / ir: whether layout optimization was chosen, whether a stride was padded.

Everything is fail-open: a fault here is logged as a hook_error and the program runs on. After
its own work it runs the sitecustomize it shadows, if any.
"""

from __future__ import annotations

import json
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_LOG_ENV = "COMPDIAG_BISECT_LOG"
_CONFIG_ENV = "COMPDIAG_BISECT_CONFIG"
_RANDOM_WORDS = ("rand", "seed", "bernoulli", "dropout", "exponential", "philox", "rng",
                 "normal", "uniform", "multinomial", "poisson", "cauchy", "geometric")
_BUILTIN_NS = ("aten", "prims", "prim", "inductor", "higher_order", "_operator", "operator")

sys.modules["compdiag_bisect_hook"] = sys.modules[__name__]
_files: dict[str, object] = {}
_counts: dict[tuple[str, str], int] = {}
_state = {"graph": None, "padded": False}


def _log(rec: dict) -> None:
    path = os.environ.get(_LOG_ENV)
    if not path:
        return
    try:
        f = _files.get(path)
        if f is None:
            f = _files[path] = open(path, "a", buffering=1)
        f.write(json.dumps(rec, default=str) + "\n")
    except Exception:  # noqa: BLE001 - fail-open
        pass


def _error(where: str, exc: BaseException) -> None:
    _log({"t": "hook_error", "where": where, "msg": f"{type(exc).__name__}: {exc}"})


def _compile_id() -> str | None:
    try:
        from torch._guards import CompileContext

        cid = CompileContext.current_compile_id()
        return None if cid is None else str(cid)
    except Exception:  # noqa: BLE001
        return None


def _closure_values(fn) -> list:
    try:
        return [c.cell_contents for c in (fn.__closure__ or ())]
    except Exception:  # noqa: BLE001
        return []


def _source_line(node) -> str | None:
    trace = getattr(node, "meta", {}).get("stack_trace") if node is not None else None
    if not trace:
        return None
    lines = [ln.strip() for ln in trace.strip().splitlines() if ln.strip()]
    frames = [i for i, ln in enumerate(lines) if ln.startswith("File ")]
    if not frames:
        return None
    i = frames[-1]
    code = lines[i + 1] if i + 1 < len(lines) and not lines[i + 1].startswith("File ") else ""
    return (lines[i] + (": " + code if code else ""))[:300]


# -- torch._inductor.compiler_bisector ------------------------------------------------------
_GRAPH_OF_SUBSYSTEM = {"pre_grad_passes": "dynamo graph (pre-grad)",
                       "pre_grad_graph": "dynamo graph (pre-grad)",
                       "joint_graph_passes": "joint graph",
                       "decomposition": "AOT trace"}


def _patch_bisector(mod) -> None:
    cb = mod.CompilerBisector
    orig_disable = cb.disable_subsystem.__func__
    orig_config = cb.get_config_change.__func__

    def disable_subsystem(cls, backend, subsystem, debug_info=None):
        result = orig_disable(cls, backend, subsystem, debug_info)
        try:
            if cls.bisection_enabled and os.environ.get(_LOG_ENV):
                key = (backend, subsystem)
                idx = _counts.get(key, 0)
                _counts[key] = idx + 1
                rec = {"t": "app", "backend": backend, "active": cls.get_backend(),
                       "subsystem": subsystem, "i": idx, "disabled": bool(result),
                       "cid": _compile_id(),
                       "graph": _GRAPH_OF_SUBSYSTEM.get(subsystem) or _state["graph"]}
                if debug_info is not None:
                    rec["info"] = debug_info()
                    for value in _closure_values(debug_info):
                        target = getattr(value, "target", None)
                        if target is not None and hasattr(value, "meta"):  # an fx.Node
                            rec["target"] = str(target)
                            rec["src"] = _source_line(value)
                        elif hasattr(value, "passname"):  # a GraphTransformObserver
                            rec["target"] = value.passname
                _log(rec)
        except Exception as exc:  # noqa: BLE001
            _error("disable_subsystem", exc)
        return result

    def get_config_change(cls, config_name):
        try:
            change = json.loads(os.environ.get(_CONFIG_ENV) or "{}").get(config_name)
        except Exception as exc:  # noqa: BLE001
            _error("get_config_change", exc)
            change = None
        if change:
            return dict(change)
        return orig_config(cls, config_name)

    cb.disable_subsystem = classmethod(disable_subsystem)
    cb.get_config_change = classmethod(get_config_change)
    # torch caches the TORCH_BISECT_* variables; a probe started from a warm interpreter
    # (fork) must see its own.
    mod.get_env_val.cache_clear()
    cb.bisection_enabled = mod.get_is_bisection_enabled()


# -- torch._inductor.compile_fx -------------------------------------------------------------
def _scan(gm, where: str, kind: str | None) -> None:
    import torch

    random = False
    dtypes: set[str] = set()
    custom: set[str] = set()
    n = 0
    for node in gm.graph.nodes:
        n += 1
        for key in ("val", "example_value"):
            val = node.meta.get(key)
            vals = val if isinstance(val, (list, tuple)) else (val,)
            for v in vals:
                if isinstance(v, torch.Tensor):
                    dtypes.add(str(v.dtype).replace("torch.", ""))
        if node.op != "call_function" and node.op != "call_method":
            continue
        target = node.target
        name = str(getattr(target, "__name__", target)).lower()
        full = str(target).lower()
        if isinstance(target, str):
            name = full = target.lower()
        tags = getattr(target, "tags", ()) or ()
        if any(w in name or w in full for w in _RANDOM_WORDS) or any(
                "nondeterministic_seeded" in str(t) for t in tags):
            random = True
        ns = getattr(target, "namespace", None)
        if ns is None and isinstance(target, torch._ops.OpOverloadPacket):
            ns = target._qualified_op_name.split("::")[0]
        if ns is not None and ns not in _BUILTIN_NS:
            custom.add(str(target))
        if isinstance(target, torch._ops.HigherOrderOperator):
            if any(w in name for w in _RANDOM_WORDS):
                random = True
    _log({"t": "graph", "where": where, "cid": _compile_id(), "kind": kind, "nodes": n,
          "random": random, "dtypes": sorted(dtypes), "custom": sorted(custom)})


def _patch_compile_fx(mod) -> None:
    orig_compile_fx = mod.compile_fx
    orig_codegen = mod.fx_codegen_and_compile

    def compile_fx(model_, example_inputs_, *args, **kwargs):
        if os.environ.get(_LOG_ENV):
            _log({"t": "compile", "cid": _compile_id()})
            try:
                if hasattr(model_, "graph"):
                    _scan(model_, "dynamo", None)
                else:
                    _log({"t": "scan_error", "msg": "no fx graph"})
            except Exception as exc:  # noqa: BLE001
                _log({"t": "scan_error", "msg": repr(exc)})
        return orig_compile_fx(model_, example_inputs_, *args, **kwargs)

    def fx_codegen_and_compile(gm, example_inputs, *args, **graph_kwargs):
        kind = ("inference" if graph_kwargs.get("is_inference") else
                "backward" if graph_kwargs.get("is_backward") else "forward")
        prev, _state["graph"] = _state["graph"], kind
        if os.environ.get(_LOG_ENV):
            try:
                _scan(gm, "aot", kind)
            except Exception as exc:  # noqa: BLE001
                _log({"t": "scan_error", "msg": repr(exc)})
        try:
            return orig_codegen(gm, example_inputs, *args, **graph_kwargs)
        finally:
            _state["graph"] = prev

    mod.compile_fx = compile_fx
    mod.fx_codegen_and_compile = fx_codegen_and_compile


# -- torch._dynamo.backends.debugging ---------------------------------------------------------
def _patch_debugging(mod) -> None:
    """aot_eager_decomp_partition (which the crossref backend calls by name): scan the graphs
    it gets, so a crossref failure can tell whether it had custom ops to check."""
    orig = mod.aot_eager_decomp_partition

    def aot_eager_decomp_partition(gm, fake_tensor_inputs, **kwargs):
        if os.environ.get(_LOG_ENV):
            _log({"t": "compile", "cid": _compile_id()})
            try:
                _scan(gm, "dynamo", None)
            except Exception as exc:  # noqa: BLE001
                _log({"t": "scan_error", "msg": repr(exc)})
        return orig(gm, fake_tensor_inputs, **kwargs)

    mod.aot_eager_decomp_partition = aot_eager_decomp_partition


# -- torch._inductor.graph / ir -------------------------------------------------------------
def _patch_graph(mod) -> None:
    gl = mod.GraphLowering
    orig = gl.decide_layout_opt

    def decide_layout_opt(gm, *, is_inference):
        value = orig(gm, is_inference=is_inference)
        _log({"t": "layout_opt", "value": bool(value), "cid": _compile_id()})
        return value

    gl.decide_layout_opt = staticmethod(decide_layout_opt)


def _patch_ir(mod) -> None:
    layout = mod.Layout
    orig = layout._pad_strides

    def _pad_strides(in_strides, size, dtype):
        out = orig(in_strides, size, dtype)
        if not _state["padded"] and list(out) != list(in_strides):
            _state["padded"] = True
            _log({"t": "padded", "cid": _compile_id()})
        return out

    layout._pad_strides = staticmethod(_pad_strides)


_PATCHES = {"torch._inductor.compiler_bisector": _patch_bisector,
            "torch._inductor.compile_fx": _patch_compile_fx,
            "torch._inductor.graph": _patch_graph,
            "torch._dynamo.backends.debugging": _patch_debugging,
            "torch._inductor.ir": _patch_ir}


class _Finder:
    """A meta-path finder that lets the real loader run, then patches the module."""

    def __init__(self) -> None:
        self._busy: set[str] = set()

    def find_spec(self, fullname, path, target=None):
        if fullname not in _PATCHES or fullname in self._busy:
            return None
        self._busy.add(fullname)
        try:
            import importlib.util

            spec = importlib.util.find_spec(fullname)
        finally:
            self._busy.discard(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        orig_exec = loader.exec_module

        def exec_module(module):
            orig_exec(module)
            try:
                _PATCHES[fullname](module)
                module._compdiag_bisect_patched = True
            except Exception as exc:  # noqa: BLE001
                _error(fullname, exc)

        loader.exec_module = exec_module
        return spec


def install() -> None:
    """Patch what is already loaded (a warm interpreter) and watch for the rest."""
    for name, patch in _PATCHES.items():
        mod = sys.modules.get(name)
        if mod is not None and not getattr(mod, "_compdiag_bisect_patched", False):
            try:
                patch(mod)
                mod._compdiag_bisect_patched = True
            except Exception as exc:  # noqa: BLE001
                _error(name, exc)
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


def refresh() -> None:
    """In a probe forked from a warm interpreter: start from nothing, read this probe's env."""
    _files.clear()
    _counts.clear()
    _state.update(graph=None, padded=False)
    install()
    mod = sys.modules.get("torch._inductor.compiler_bisector")
    if mod is not None:
        mod.get_env_val.cache_clear()
        mod.CompilerBisector.bisection_enabled = mod.get_is_bisection_enabled()
        mod.subsystem_call_counter.clear()


def _chain() -> None:
    """Run the sitecustomize this one shadows, as Python would have."""
    from compdiag.formats.site_chain import run_shadowed

    run_shadowed(_HERE)


if os.environ.get(_LOG_ENV) or os.environ.get(_CONFIG_ENV):
    try:
        install()
    except Exception:  # noqa: BLE001 - fail-open
        pass
try:
    _chain()
except Exception as exc:  # noqa: BLE001
    print(f"compdiag bisect: the shadowed sitecustomize failed: {exc}", file=sys.stderr)
