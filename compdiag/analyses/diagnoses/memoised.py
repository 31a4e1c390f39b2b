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

The evidence is the run's own: torch's warning at the call (torch_warnings), the memoising
decorator on the function that encloses a random node of that compile's graphs (the user's
source), and the call line calling that function. A memoised helper that draws nothing
computes the same value again, which costs only time: not said.

The rules are data: MEMOISERS (the decorators), RANDOM (the ops), WARNING (torch's words)."""

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

KIND = "memoised"

# torch's warning at a call of an lru_cache-wrapped function (functools.cache is one too),
# and the user frame it names ("This call originates from: File ..., line N")
WARNING = "lru_cache`-wrapped"
ORIGIN = re.compile(r'originates from:\s*File "(?P<file>[^"]+)", line (?P<line>\d+)')
# decorators that memoise (as the source spells them: `functools.lru_cache(maxsize=None)`)
MEMOISERS = re.compile(r"(?:^|\.)(?:lru_cache|cache)\b")
# post-grad targets that draw random numbers: Inductor's own, or ATen's under fallback_random
RANDOM = re.compile(r"inductor_random|inductor_randint|\b(?:aten\.)?(?:rand|randn|randint|"
                    r"randperm|rand_like|randn_like|bernoulli|normal|uniform|multinomial|"
                    r"native_dropout|exponential|geometric|cauchy|log_normal)\b")

REASON = ("{fn}() is memoised with {memo}, which compiled code ignores: its random draw at "
          "line {drawn} (`{draw}`) is made anew {calls}")
EXPLANATION = (
    "Dynamo does not keep functools.lru_cache's memo: it traces {fn}() into the graph at "
    "every call (torch warns that it \"ignores the cache wrapper\"). Eager draws the random "
    "numbers once and every later call returns the same ones; in the compiled function each "
    "call draws new ones, so values the program meant to share (one projection, one mask) "
    "differ between calls and from eager, silently.")
FIX = ("Make the memoised value once, outside the compiled function, and pass it in or keep it "
       "as a tensor attribute or global made before the first compiled call (`value = "
       "{fn}(...)` in eager code); or mark {fn}() `@torch.compiler.disable` so it runs in eager "
       "with its memo, at a graph break per call.")
WHY = "computed from the memoised helper's random numbers, drawn again inside compiled code"


@dataclass(frozen=True)
class MemoisedDetails(Details):
    function: str
    filename: str
    first: int
    last: int
    draws: int  # random nodes of its body in the compile's graphs


def _is_consequence(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """The accuracy check's verdict on the same compile: its difference (or its "random
    numbers, not comparable" note) is the redrawn value's."""
    return isinstance(cause.details, MemoisedDetails) and \
        effect.compile_id == cause.compile_id


SPEC = KindSpec(KIND, title="memo compiled code ignores",
                words=("memoised helper", "memoised helpers"), style="bold red", tie=47,
                # silently other values than eager, certain: beside unguarded (902)
                costs={"memoised": Cost(902)}, details=(MemoisedDetails,),
                causes=(Causes(KIND, "accuracy", WHY, _is_consequence),))


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


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    out: list[Diagnosis] = []
    for cid, calls in _calls(ctx).items():
        draws = [n for n in ctx.every_graph_nodes(cid)
                 if RANDOM.search(str(n.get("target") or "")) and n.get("lineno")]
        defs: dict[str, list[tuple[Any, str]]] = {}
        for node in draws:
            filename = node.get("filename")
            if filename not in defs:
                defs[filename] = _memoised_defs(ctx.source_text(filename) or "")
            fn = next(((d, memo) for d, memo in defs[filename]
                       if d.lineno < int(node["lineno"]) <= (d.end_lineno or d.lineno)), None)
            if fn is None:
                continue
            d, memo = fn
            sites = [c for c in calls
                     if any(n.rsplit(".", 1)[-1] == d.name for n in called_names(c["line"]))]
            if not sites:
                continue
            inside = [n for n in draws if n.get("filename") == filename
                      and d.lineno < int(n["lineno"]) <= (d.end_lineno or d.lineno)]
            site = sites[0]
            # each call Dynamo traced wrote the body again: the draws of this line
            count = sum(1 for n in inside if n["lineno"] == node["lineno"])
            calls_said = (f"at each of its {count} calls in the compiled function"
                          if count > 1 else "at each compiled call")
            out.append(Diagnosis(
                KIND, stage="dynamo", compile_id=cid,
                reason=REASON.format(fn=d.name, memo=f"`@{memo}`", drawn=node["lineno"],
                                     draw=str(node.get("line") or "").strip(),
                                     calls=calls_said),
                user_frame=ctx.frame(site["filename"], site["lineno"], site["line"], "torch"),
                explanation=EXPLANATION.format(fn=d.name), fix=FIX.format(fn=d.name),
                score=SPEC.score("memoised"), count=count,
                details=MemoisedDetails(function=d.name, filename=str(filename),
                                        first=d.lineno, last=d.end_lineno or d.lineno,
                                        draws=len(inside))))
            break  # one diagnosis a compile: the first memoised draw
    return out
