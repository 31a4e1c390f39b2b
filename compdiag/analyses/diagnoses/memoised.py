"""A memoised helper whose memo compiled code drops, kind `memoised`.

Dynamo does not keep the memo of `functools.lru_cache` or `functools.cache`: it warns that it
"ignores the cache wrapper and directly traces the wrapped function", and writes the helper's
body into the graph at every call. Eager returns the first call's value at each later call;
the compiled function computes it again at each call. Where the body draws random numbers (a
random projection, a fixed noise pattern, a mask drawn once on purpose), each call inside the
compiled code draws its own: values eager shares between calls differ, with no graph break,
no recompile and no error (probes36e lru_random_features: random Fourier features memoised so
that the train and the test features use one projection; compiled, each of the two calls drew
another, and the test error went from 0.49 to 2.01, while explain said no problem).

The same holds for a side effect: a memoised function that writes a global (counting its calls,
pytorch/pytorch#146598) writes it again at each compiled call, and Dynamo guards on it.

The evidence is the run's own: torch's warning at the call (torch_warnings), the memoising
decorator on the function that call calls (the user's source), and in its body a random node
of that compile's graphs or an assignment to a name it declares global. A memoised helper
that does neither computes the same value again, which costs only time: not said.

The rules are data: MEMOISERS (the decorators), WARNING and ORIGIN (torch's words); what draws
random numbers is formats/random_names.py's, capture's list."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.consequences import Causes
from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.ranking import Cost
from compdiag.formats.code_text import called_names
from compdiag.formats.random_names import random_calls, traced_random

KIND = "memoised"

# torch's warning at a call of an lru_cache-wrapped function (functools.cache is one too),
# and the user frame it names ("This call originates from: File ..., line N")
WARNING = "lru_cache`-wrapped"
ORIGIN = re.compile(r'originates from:\s*File "(?P<file>[^"]+)", line (?P<line>\d+)')
# decorators that memoise (as the source spells them: `functools.lru_cache(maxsize=None)`)
MEMOISERS = re.compile(r"(?:^|\.)(?:lru_cache|cache)\b")
REASON = ("{fn}() is memoised with {memo}, which compiled code ignores: its {what} at "
          "line {at} (`{text}`) is made anew {calls}")
EXPLANATION = (
    "Dynamo does not keep functools.lru_cache's memo: it traces {fn}() into the graph at "
    "every call (torch warns that it \"ignores the cache wrapper\"). Eager runs the body once "
    "per argument and every later call returns the first result; in the compiled function "
    "each call runs it again, so random numbers the program meant to share (one projection, "
    "one mask) are drawn anew and a side effect is made again: values differ between calls "
    "and from eager, silently.")
FIX = ("Make the memoised value once, outside the compiled function, and pass it in or keep it "
       "as a tensor attribute or global made before the first compiled call (`value = "
       "{fn}(...)` in eager code); or mark {fn}() `@torch.compiler.disable` so it runs in eager "
       "with its memo, at a graph break per call.")
WHY = "computed from what the memoised helper made again inside compiled code"
WRITTEN = "the memoised helper's global, written again at each compiled call"


@dataclass(frozen=True)
class MemoisedDetails(Details):
    function: str
    filename: str
    first: int
    last: int
    effect: str  # what compiled code makes again: "random draw", "write to a global"
    written: str | None = None  # the global it writes


def _is_consequence(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """The accuracy check's verdict on the same compile: its difference (or its "random
    numbers, not comparable" note) is the redrawn value's."""
    return isinstance(cause.details, MemoisedDetails) and \
        effect.compile_id == cause.compile_id


def _rewritten(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """A recompile on the global the memoised function writes: each compiled call wrote it
    again, and Dynamo guards on its value."""
    d = cause.details
    return isinstance(d, MemoisedDetails) and bool(d.written) and \
        getattr(effect.details, "guard", None) == f"G['{d.written}']"


SPEC = KindSpec(KIND, title="memo compiled code ignores",
                words=("memoised helper", "memoised helpers"), style="bold red", tie=47,
                # silently other values than eager, certain: beside unguarded (902)
                costs={"memoised": Cost(902)}, details=(MemoisedDetails,),
                causes=(Causes(KIND, "accuracy", WHY, _is_consequence),
                        Causes(KIND, "recompile", WRITTEN, _rewritten)))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


def _memoised_defs(text: str) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    """The file's functions with a memoising decorator, and that decorator as spelt."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in node.decorator_list:
                spelt = ast.unparse(deco.func if isinstance(deco, ast.Call) else deco)
                if MEMOISERS.search(spelt):
                    out.append((node, spelt))
                    break
    return out


def _calls(ctx: Any) -> dict[str | None, list[dict[str, Any]]]:
    """torch's warnings at a call of a memoised function, by compile: the call's file, line
    and text."""
    out: dict[str | None, list[dict[str, Any]]] = {}
    for w in ctx.r.torch_warnings(ctx.run_id):
        message = str(w.get("message") or "")
        m = ORIGIN.search(message) if WARNING in message else None
        if m is None:
            continue
        filename, lineno = ctx.resolve(m["file"]) or m["file"], int(m["line"])
        out.setdefault(w.get("compile_id"), []).append(
            {"filename": filename, "lineno": lineno,
             "line": ctx.source_line(filename, lineno) or ""})
    return out


def _global_write(d: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[ast.stmt, str] | None:
    """The body's first statement that assigns a name it declares `global` or `nonlocal`,
    and that name: a side effect eager makes once per argument (pytorch/pytorch#146598: a
    memoised function counting its calls in a global)."""
    declared = {n for s in ast.walk(d) if isinstance(s, (ast.Global, ast.Nonlocal))
                for n in s.names}
    for stmt in sorted(ast.walk(d), key=lambda n: getattr(n, "lineno", 0)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if \
            isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) else []
        name = next((t.id for t in targets if isinstance(t, ast.Name) and t.id in declared),
                    None)
        if name is not None:
            return stmt, name
    return None


def _effect(ctx: Any, cid: str | None, filename: str, d: Any
            ) -> tuple[str, int, str, int, str | None]:
    """What compiled code makes again at each call of memoised `d`: ("random draw", its
    line, its text, the draws of that line in the compile's graphs: one per traced call) or
    ("write to a global", ...); ("", 0, "", 0, None) when neither (a value computed again, the
    same: nothing to say). Last, the global's name."""
    inside = [n for n in ctx.every_graph_nodes(cid)
              if traced_random(str(n.get("target") or "")) and n.get("lineno")
              and n.get("filename") == filename
              and d.lineno < int(n["lineno"]) <= (d.end_lineno or d.lineno)]
    if inside:
        first = inside[0]
        text = str(first.get("line") or "").strip()
        # each traced call writes the line's draws again: its nodes over the draws it spells
        per_call = max(1, random_calls(text))
        nodes = sum(1 for n in inside if n["lineno"] == first["lineno"])
        return "random draw", int(first["lineno"]), text, max(1, nodes // per_call), None
    written = _global_write(d)
    if written is not None:
        stmt, name = written
        return "write to a global", stmt.lineno, ast.unparse(stmt), 1, name
    return "", 0, "", 0, None


def _memoised_callee(ctx: Any, cid: str | None, site: dict[str, Any]
                     ) -> tuple[Any, str, str] | None:
    """The memoised function a warned call calls: (its def, its decorator, its file), looked
    for in the call's file, then in the files the compile's graph nodes come from."""
    names = {n.rsplit(".", 1)[-1] for n in called_names(site["line"])}
    files = dict.fromkeys([site["filename"], *(n.get("filename")
                                               for n in ctx.every_graph_nodes(cid))])
    for filename in files:
        for d, memo in _memoised_defs(ctx.source_text(filename) or "") if filename else ():
            if d.name in names:
                return d, memo, filename
    return None


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    out: list[Diagnosis] = []
    said: set[tuple[Any, ...]] = set()
    for cid, calls in _calls(ctx).items():
        for site in calls:
            found = _memoised_callee(ctx, cid, site)
            if found is None:
                continue
            d, memo, filename = found
            what, lineno, text, count, written = _effect(ctx, cid, filename, d)
            if not what or (filename, d.name) in said:
                continue
            said.add((filename, d.name))
            calls_said = (f"at each of its {count} calls in the compiled function"
                          if count > 1 else "at each compiled call")
            out.append(Diagnosis(
                KIND, stage="dynamo", compile_id=cid,
                reason=REASON.format(fn=d.name, memo=f"`@{memo}`", what=what, at=lineno,
                                     text=text, calls=calls_said),
                user_frame=ctx.frame(site["filename"], site["lineno"], site["line"], "torch"),
                explanation=EXPLANATION.format(fn=d.name), fix=FIX.format(fn=d.name),
                score=SPEC.score("memoised"), count=count,
                details=MemoisedDetails(function=d.name, filename=str(filename),
                                        first=d.lineno, last=d.end_lineno or d.lineno,
                                        effect=what, written=written)))
    return out
