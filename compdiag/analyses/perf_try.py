"""`compdiag perf --try`: which settings to try for a run's top limiters, and each tried
setting's measured effect beside the baseline.

A setting is applied from outside the user's code (compdiag/capture/try_settings.py, in the
child before the script runs; a compile mode through `compdiag run --mode`): the script is
never edited. A limiter whose fix needs a change inside the user's loop
(`torch.compiler.cudagraph_mark_step_begin()`) is named as not applicable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compdiag.analyses import perf_stats as S
from compdiag.analyses.rules import found


@dataclass(frozen=True)
class Setting:
    name: str
    what: str                     # what the user would write
    mode: str | None = None       # a torch.compile mode, applied as `compdiag run --mode`
    child: str | None = None      # a name capture/try_settings.py applies in the child
    cuda_only: bool = False       # has no effect (or no sense) on the CPU
    outside: bool = True          # False: needs the user's code changed, never tried


SETTINGS: dict[str, Setting] = {s.name: s for s in (
    Setting("tf32", "torch.set_float32_matmul_precision('high')", child="tf32", cuda_only=True),
    Setting("reduce-overhead", "torch.compile(..., mode='reduce-overhead')",
            mode="reduce-overhead", cuda_only=True),
    Setting("max-autotune", "torch.compile(..., mode='max-autotune')", mode="max-autotune",
            cuda_only=True),
    Setting("dynamic", "torch.compile(..., dynamic=True) / torch._dynamo.mark_dynamic",
            child="dynamic"),
    Setting("capture_scalar_outputs", "torch._dynamo.config.capture_scalar_outputs = True",
            child="capture_scalar_outputs"),
    Setting("cpp_wrapper", "torch._inductor.config.cpp_wrapper = True", child="cpp_wrapper"),
    Setting("cudagraph_mark_step_begin", "torch.compiler.cudagraph_mark_step_begin() before "
            "each iteration", outside=False),
)}

# (limiter kind, words one of which its fix names (empty: any fix; analyses/rules.py),
# setting), first match per limiter wins; a limiter with no row has no setting to try.
TRY_RULES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("tf32_off", (), "tf32"),
    ("launch_overhead", (), "reduce-overhead"),
    ("outside_graphs", ("reduce-overhead",), "reduce-overhead"),
    ("outside_graphs", ("cpp_wrapper",), "cpp_wrapper"),
    ("fusion_miss", ("max-autotune",), "max-autotune"),
    ("recompile", ("mark_dynamic", "dynamic=True"), "dynamic"),
    ("cudagraph_rerecord", (), "dynamic"),
    ("cudagraph_rerecord", (), "cudagraph_mark_step_begin"),
    ("graph_break", ("capture_scalar_outputs",), "capture_scalar_outputs"),
)
MAX_TRIES = 3
NOT_OUTSIDE = ("it needs a call inside the program's own loop; compdiag applies settings from "
               "outside and never edits the script")


def choose(limiters: list[dict[str, Any]], device: str | None, mode: str | None,
           only: set[str] | None = None
           ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(settings to try, settings named but not tried with why), from the limiters in their
    order (most impact first), at most MAX_TRIES, each once; `only` restricts the names
    (`--try-settings`)."""
    dev = str(device or "cpu").strip().lower()
    on_cuda = not (dev.startswith("cpu") or dev in ("", "none"))
    tries: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    seen: set[str] = set()
    for lim in limiters:
        fix = (lim.get("fix") or "")
        for kind, words, name in TRY_RULES:
            if lim.get("kind") != kind or not found(words, fix):
                continue
            if name in seen or (only is not None and name not in only):
                continue
            seen.add(name)
            s = SETTINGS[name]
            row = {"setting": s.name, "what": s.what, "limiter": lim.get("kind"),
                   "limiter_reason": lim.get("reason")}
            if not s.outside:
                skipped.append({**row, "why": NOT_OUTSIDE})
            elif s.cuda_only and not on_cuda:
                skipped.append({**row, "why": "it has no effect on the CPU"})
            elif s.mode is not None and s.mode == (mode or "default"):
                skipped.append({**row, "why": f"the baseline already ran with mode={s.mode}"})
            elif len(tries) < MAX_TRIES:
                tries.append(row)
    return tries, skipped


def _basis(rep: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    mt = rep.get("module_totals") or {}
    if mt.get("speedup", {}).get("ratio") is not None:
        return "whole calls", mt
    return "graphs", rep.get("totals") or {}


def top_samples(reader: Any, run_id: int) -> list[float]:
    """Compiled per-call seconds of the run's most expensive timed thing: its compiled
    module's whole calls when there are some, else its heaviest graph."""
    def heaviest(rows: list[dict[str, Any]]) -> list[float]:
        best, weight = [], -1.0
        for r in rows:
            cs = r.get("compiled_s") or []
            if len(cs) >= S.MIN_SAMPLES:
                w = max(1, int(r.get("calls") or 1)) * S.median(cs)
                if w > weight:
                    best, weight = list(cs), w
        return best

    return heaviest(reader.perf_calls(run_id)) or heaviest(reader.perf_graphs(run_id))


def effect(reader: Any, base: dict[str, Any], tried: dict[str, Any], base_run: int,
           tried_run: int) -> dict[str, Any]:
    """A tried setting against the baseline: both speed-ups over eager (each measured inside
    its own process, with its interval) and the compiled time's change, baseline / setting,
    with a bootstrap interval over the two processes' samples (not paired)."""
    basis, b = _basis(base)
    _, t = _basis(tried)
    change = S.speedup(top_samples(reader, base_run), top_samples(reader, tried_run),
                       paired=False)
    verdict = {"faster": "helps", "slower": "slower"}.get(change.verdict, "does not help")
    if change.verdict == "too few samples":
        verdict = "not measured"
    return {"basis": basis, "speedup": (t or {}).get("speedup"),
            "baseline_speedup": (b or {}).get("speedup"),
            "compiled_change": change.as_dict(), "verdict": verdict}
