"""Inputs of a compiled call that share memory while the graph mutates one of them, kind
`aliasing`: the cause of a failure or an accuracy mismatch of that compile.

AOTAutograd handles such inputs by rebuilding them from one "synthetic base" and regenerating
each as a view of it; torch has open bugs on that path (pytorch#198095: `f(cache, cache[1:])`
with `cache.mul_()` inside returns the row at the base's offset instead of the view's, or
fails in gen_alias_from_base with "incorrect out shape after application of ViewMeta
sequence"). Blind probes met both (probes43b kv_prefix_offset_row_alias,
history_window_flatten_alias): compdiag said a mismatch it could not localise, and an
AssertionError with a bisect, never the aliasing. The facts are ingest's (the aliased_inputs
rows, from Dynamo's tensor descriptions and AOTAutograd's synthetic_base_wrapper artifact).
A compile whose aliased inputs caused nothing visible gets no diagnosis: the path usually
works."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.consequences import Causes
from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.ranking import Cost

KIND = "aliasing"
REASON = ("inputs {names} of {fn}() share memory ({views}) and the graph mutates one of "
          "them: AOTAutograd rebuilt them from one synthetic base, and the compiled call "
          "{then}")
EXPLANATION = (
    "When a compiled function's inputs overlap in memory (one a view of the other) and the "
    "graph writes to one of them, AOTAutograd merges them into a single base tensor and "
    "regenerates each input, and each output view of one, from it. torch has open bugs on "
    "that path (pytorch/pytorch#198095): outputs regenerated at the base's offset instead of "
    "the view's, or an AssertionError in gen_alias_from_base. Eager, with no such merge, is "
    "right. The difference or the failure folded here comes from the overlap, not from "
    "the ops it points at.")
FIX = ("Give the compiled function inputs that do not overlap: pass the base alone and take "
       "the view inside it (`{fn}({base}, ...)` with `{base}[...]` computed inside), or pass "
       "a copy of the view (`.clone()`) at line {line}.")
WHY = "a consequence of the compiled call's overlapping inputs that the graph mutates"
_SOURCE = re.compile(r"^L\['(?P<name>[^']+)'\]$")


@dataclass(frozen=True)
class AliasingDetails(Details):
    omit_none = ("fatal",)
    inputs: tuple[str, ...]
    function: str | None
    filename: str | None
    # the failure folded here ended the program (as the failure kind's `fatal`): the cause
    # that folds its consequence says how the run ended too
    fatal: bool | None = None


def _caused(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """The same compile's accuracy mismatch, or a failure that surfaced in the function
    whose inputs overlap (a runtime failure names no compile id)."""
    d = cause.details
    if not isinstance(d, AliasingDetails):
        return False
    if effect.compile_id and effect.compile_id == cause.compile_id:
        return effect.kind == "accuracy" or effect.kind == "failure"
    where = getattr(effect.details, "surfaced_at", None) or {}
    return effect.kind == "failure" and effect.compile_id is None and bool(d.function) and \
        where.get("name") == d.function and where.get("filename") == d.filename


SPEC = KindSpec(KIND, title="aliased inputs", words=("aliased inputs", "aliased inputs"),
                style="bold red", tie=48,
                # silently other values than eager, or a failure: beside memoised (902)
                costs={"aliasing": Cost(902)}, details=(AliasingDetails,),
                causes=tuple(Causes(KIND, effect, WHY, _caused)
                             for effect in ("accuracy", "failure")))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


def _name(source: str | None) -> str:
    m = _SOURCE.match(source or "")
    return m.group("name") if m else str(source)


def _seen(ctx: Any, cid: str, row: dict[str, Any]) -> str | None:
    """What the overlap led to in this compile: a mismatch or a failure, else None."""
    if any(not a.get("ok") for a in ctx.r.accuracy(ctx.run_id, cid)):
        return "differed from eager"
    for f in ctx.failures:
        if f.get("compile_id") == cid or (
                not f.get("compile_id") and row.get("co_name") and
                f'in {row["co_name"]}\n' in (f.get("traceback") or "") and
                str(row.get("filename")) in (f.get("traceback") or "")):
            return f"failed ({f.get('exc_type') or 'an exception'})"
    return None


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    out = []
    for cid, rows in ctx.r.aliased_inputs(ctx.run_id).items():
        code = ctx.code_row(cid) or {}
        then = _seen(ctx, cid, code)
        if then is None:
            continue
        names = [_name(r["source"]) for r in rows]
        base = next((n for n, r in zip(names, rows) if not r.get("is_view")), names[0])
        views = ", ".join(f"{n} is a view of {base}"
                          + (f" at offset {r['storage_offset']}" if r.get("storage_offset")
                             else "")
                          for n, r in zip(names, rows) if r.get("is_view")) or "one storage"
        chain = ctx.call_chain(cid)
        frame = chain[-1] if chain else ctx.def_frame(cid)
        fn = code.get("co_name") or "the compiled function"
        out.append(Diagnosis(
            KIND, stage="aot", compile_id=cid,
            reason=REASON.format(names=" and ".join(names), fn=fn, views=views, then=then),
            user_frame=frame, explanation=EXPLANATION,
            fix=FIX.format(fn=fn, base=base, line=frame.lineno),
            score=SPEC.score("aliasing"),
            details=AliasingDetails(inputs=tuple(names), function=code.get("co_name"),
                                    filename=code.get("filename"),
                                    fatal=True if then.startswith("failed") and ctx.crashed
                                    else None)))
    return out
