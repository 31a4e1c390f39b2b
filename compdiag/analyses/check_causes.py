"""What is behind a failed check of the program's own that compares compiled with eager (issue
29 §4), from stored facts: a cause --check-accuracy measured (TF32, ill-conditioning), or
random numbers Inductor draws itself. The program kind names it in the check's headline and
fix, so the user reads the cause, not only that their assert failed."""

from __future__ import annotations

import ast
import re
from typing import Any, NamedTuple

from compdiag.analyses.baked_values import baked_value
from compdiag.analyses.cached_compiles import hits_across_reset
from compdiag.analyses.compiled_source import compiled_functions
from compdiag.analyses.late_changes import late_changes
from compdiag.analyses.process_settings import VALIDATION_FIX, VALIDATION_OFF, distribution_built


class Cause(NamedTuple):
    """One cause behind a failed check: the headline's words and its fix; `measured` when
    --check-accuracy measured it (its fix then replaces the plain verdict on the check)."""
    words: str
    fix: str
    measured: bool = False


# Inductor's own random-number ops (torch._inductor.config.fallback_random=False, the
# default): a graph that holds one draws from another stream than eager, whatever the seed.
INDUCTOR_RANDOM = ("prims.inductor_random.", "prims.inductor_randint.")
RANDOM_FIX = ("Inductor generates the random numbers {where} itself, so they never match "
              "eager's, seed or no seed (by design: torch.compile promises the distribution, "
              "not the values). To compare compiled with eager, set "
              "`torch._inductor.config.fallback_random = True` before compiling (eager's "
              "generator, slower), or compare statistics instead of values.")


# What --check-accuracy measured that explains a user's failed check while compiled equals
# eager (the verdicts capture/accuracy_compare.py and capture/tf32.py give an output): the
# head's words, the fix (first verdict found wins, in this order).
CHECKED_CAUSES: tuple[tuple[str, str, str], ...] = (
    ("tf32", "eager and compiled alike compute its float32 matmuls/convolutions in TF32",
     "The difference is TF32's, in eager as much as compiled (see the accuracy diagnosis): "
     "turn TF32 off before the computation (`torch.backends.cudnn.allow_tf32 = False`, "
     "`torch.set_float32_matmul_precision('highest')`) or compare with a tolerance TF32 "
     "meets."),
    ("ill_conditioned", "the computation amplifies rounding error (ill-conditioned), in eager "
     "and compiled alike", "The difference is the computation's conditioning, not the "
     "compiler's (see the accuracy diagnosis)."),
)


def checked_cause(ctx: Any) -> tuple[str, str] | None:
    """The (words, fix) of the first CHECKED_CAUSES verdict among the run's accuracy rows."""
    verdicts = {(r.get("detail") or {}).get("verdict") for r in ctx.r.accuracy(ctx.run_id)
                if isinstance(r.get("detail"), dict)}
    return next(((words, fix) for v, words, fix in CHECKED_CAUSES if v in verdicts), None)


# The verdicts of a comparison of values (a plain mismatch, a miscompile against float64):
# what Inductor's own random numbers make meaningless (random values rarely make a NaN; an
# input eager rejects, a dtype or TF32 say the same whatever the numbers).
# (probes30b langevin_anneal_ok: a Langevin step's own randn_like noise, drawn anew by the
# float64 replay too, read as rounding error "amplified ~7.5e5x", an ill-conditioned problem)
RANDOM_SENSITIVE = (None, "miscompile", "ill_conditioned")


def random_draw(reader: Any, run_id: int, cid: str | None) -> dict[str, Any] | None:
    """The first node of the compile's graphs (every one of them: a training step draws in
    its forward, and the gradient is compared after the backward) that draws Inductor's own
    random numbers, at its user line; None when none does."""
    for prefix in INDUCTOR_RANDOM:
        found = reader.every_graph_nodes(run_id, cid, prefix)
        if found:
            return found[0]
    return None


def random_excuse(reader: Any, run_id: int, cid: str | None,
                  bad: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The random draw that explains every differing output of a compiled graph (`bad`: its
    accuracy rows that differ), for explain and the `check` gate alike: each a comparison of
    values whose first divergent node, where known, comes at or after the draw; None when one
    does not (that difference is the compiler's to answer) or the graph draws nothing."""
    details = [o.get("detail") if isinstance(o.get("detail"), dict) else {} for o in bad]
    if not bad or any(d.get("verdict") not in RANDOM_SENSITIVE for d in details):
        return None
    drawn = random_draw(reader, run_id, cid)
    if drawn is None or not all(random_explains(drawn, (d.get("divergent_node") or {}).get(
            "user_frame")) for d in details):
        return None
    return drawn


def random_explains(drawn: dict[str, Any], first: dict[str, Any] | None) -> bool:
    """Whether a difference first seen at `first` (the first divergent node's user frame, or
    None when the check did not localise it) can come from the random numbers `drawn` draws:
    nothing localised, or a node on the draw's line or after it in the same file (a node
    before the draw computes without its numbers: that difference is real)."""
    if not first or not first.get("lineno") or not drawn.get("lineno") or \
            first.get("filename") != drawn.get("filename"):
        return True
    return int(first["lineno"]) >= int(drawn["lineno"])


def random_where(node: dict[str, Any]) -> str:
    """Where the graph draws them: the user's line, or the op inside library code (dropout in
    an nn.Module the program compiled) when no user frame is on the node's stack."""
    if node.get("lineno"):
        return f"of line {node['lineno']}"
    return "of the compiled graph (drawn inside library code the compiled call runs)"


def random_fix(node: dict[str, Any]) -> str:
    """The fix for a check that compared values Inductor drew itself."""
    return RANDOM_FIX.format(where=random_where(node))


def inductor_random(ctx: Any) -> dict[str, Any] | None:
    """The first post-grad node of the run that draws Inductor's own random numbers, at its
    user line; None when no compiled graph does."""
    return next((n for cid in ctx.compiles
                 if (n := random_draw(ctx.r, ctx.run_id, cid)) is not None), None)


# A seeding call Dynamo traced into the graph (torch 2.11-2.12 traced torch.cuda.manual_seed
# as an in-graph function; pytorch/pytorch#149621): AOTAutograd and Inductor keep only ATen
# ops, so the side effect is gone and the compiled function never reseeds.
SEED_CALL = re.compile(r"\b(?:manual_seed(?:_all)?|seed(?:_all)?|set_rng_state)\(")
SEED_FIX = ("Seed outside the compiled function, before each call (or in a helper marked "
            "`@torch.compiler.disable`, which runs eagerly): a seeding call inside the graph has "
            "no effect when the compiled graph runs (newer torch graph-breaks on it instead).")


def seed_in_graph(ctx: Any) -> dict[str, Any] | None:
    """The first node of a Dynamo graph of the run that calls a seeding function."""
    for cid in ctx.compiles:
        for n in ctx.dynamo_nodes(cid):
            if SEED_CALL.search(n.get("call") or "") and n.get("lineno"):
                return n
    return None


# Inductor's pattern rewrites that change how a result is computed: (the op the compiled
# graph runs, what the program's own graph calls when it asked for it itself, the ops the
# program wrote it with, the words). Data: a new rewrite is one more row.
REWRITES: tuple[tuple[str, str, str, str], ...] = (
    ("aten._scaled_dot_product", "scaled_dot_product_attention", "softmax",
     "Inductor replaced the attention written by hand at line {line} (matmul, softmax, "
     "matmul) with a fused scaled_dot_product_attention kernel ({op}), which rounds "
     "differently"),
)
REWRITE_FIX = ("The fused kernel is a different, usually more accurate computation: compare "
               "with a tolerance the dtype meets (float16/bfloat16: about 1e-3 relative) rather "
               "than exactly, or turn Inductor's pattern rewrites off where exact agreement "
               "with eager matters: `torch._inductor.config.pattern_matcher = False`.")


def rewritten(ctx: Any) -> tuple[str, dict[str, Any]] | None:
    """(words, the program's node it rewrote) for the first REWRITES row a compile of the run
    shows: its op in the compiled graph while the program's own graph never called it."""
    for cid in ctx.compiles:
        targets = [str(n.get("target") or "") for n in ctx.graph_nodes(cid)]
        calls = ctx.dynamo_nodes(cid)
        for op, asked, wrote, words in REWRITES:
            ran = next((t for t in targets if t.startswith(op)), None)
            if ran is None or any(asked in (n.get("call") or "") for n in calls):
                continue
            written = next((n for n in calls if wrote in (n.get("call") or "")
                            and n.get("lineno")), None)
            if written is not None:
                return words.format(line=written["lineno"], op=ran), written
    return None


# Python's own random numbers drawn inside a compiled function (a `random.Random` the program
# seeded, the `random` module, numpy's): Dynamo evaluates them while it traces and replays what
# it modelled, so where a graph is reused the value can be the one drawn when it compiled
# (pytorch/pytorch#196437). torch's own generators (`torch.randint`) are drawn anew each call.
# Methods only Python's and numpy's generators have, on any object (`rng.randint`); and those
# other objects have too (a torch Distribution's `sample`), only on `random.` / `np.random.`.
PY_RANDOM = ("randint", "randrange", "gauss", "normalvariate", "choices", "shuffle",
             "getrandbits")
PY_RANDOM_MODULE_ONLY = ("random", "uniform", "choice", "sample", "rand", "randn")
PY_RANDOM_ROOTS = ("random", "np", "numpy")
PY_RANDOM_FIX = ("Draw the value outside the compiled function and pass it in (as a 0-d "
                 "tensor, so no recompile), or draw it with torch's generator inside "
                 "(`torch.randint(0, 3, ())`), which the compiled graph draws anew every call; "
                 "a Python random value inside the graph can be the one drawn when it "
                 "compiled.")


def python_random(ctx: Any) -> dict[str, Any] | None:
    """A call to a Python (or numpy) random generator inside a compiled function, read from
    the program's stored source: {call, lineno}; None when none."""
    for fn, tree in compiled_functions(ctx):
        for call in ast.walk(fn):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                continue
            attr, root = call.func.attr, _root(call.func)
            if (attr in PY_RANDOM and root not in ("torch", "th")) or (
                    attr in PY_RANDOM_MODULE_ONLY and root in PY_RANDOM_ROOTS):
                return {"call": ast.unparse(call.func), "lineno": call.lineno}
    return None


def _root(node: ast.AST) -> str:
    while isinstance(node, (ast.Attribute, ast.Call)):
        node = node.value if isinstance(node, ast.Attribute) else node.func
    return node.id if isinstance(node, ast.Name) else ""


def failed_check_causes(ctx: Any, accuracy: str | None) -> list[Cause]:
    """Every cause stored facts name behind a failed check of the program's own, each as
    (words for the headline, its fix): a seeding call the graph dropped, a pattern Inductor
    rewrote (attention into a fused kernel), Inductor's own random numbers, a change made
    after the last compile that compiled code does not see (analyses/late_changes.py), a value
    baked in by `assume_constant_result`, torch.distributions' argument checks that
    torch.compile turned off for the whole process, then what --check-accuracy measured (only
    when it found compiled equal to eager)."""
    causes: list[Cause] = []
    seeded = seed_in_graph(ctx)
    if seeded is not None:
        said = seeded.get("line") or "manual_seed"
        causes.append(Cause(f"the seed call at line {seeded['lineno']} (`{said}`) was traced "
                            "into the compiled graph, which drops it: the compiled function "
                            "never reseeds", SEED_FIX))
    rewrite = rewritten(ctx)
    if rewrite is not None:
        causes.append(Cause(rewrite[0], REWRITE_FIX))
    py = python_random(ctx)
    if py is not None:
        causes.append(Cause(f"the compiled function draws Python random numbers "
                            f"(`{py['call']}`, line {py['lineno']}), which Dynamo evaluates "
                            "while it traces", PY_RANDOM_FIX))
    drawn = inductor_random(ctx)
    if drawn is not None:
        at = f" (line {drawn['lineno']})" if drawn.get("lineno") else ""
        causes.append(Cause(f"the compiled graph draws random numbers{at} with Inductor's "
                            "own generator", random_fix(drawn)))
    for late in late_changes(ctx):  # a change the compiled graph never saw, before the check
        causes.append(Cause(late_words(late), LATE_FIX))
    served = served_across_reset(ctx)
    if served is not None:
        causes.append(Cause(served, SERVED_FIX))
    baked = baked_value(ctx)
    if baked is not None:  # a value baked into the graph with no guard on it
        causes.append(Cause(baked.said, baked.fix))
    built = distribution_built(ctx) if ctx.compiles else None
    if built is not None:  # a process-wide setting torch.compile changed, eager code included
        causes.append(Cause(VALIDATION_OFF.format(cls=built["cls"], line=built["lineno"]),
                            VALIDATION_FIX))
    measured = checked_cause(ctx) if accuracy == "equal" else None
    if measured is not None:
        causes.append(Cause(*measured, measured=True))
    return causes


LATE_FIX = ("The compiled graph kept what it traced before that line: make the change before "
            "the first compiled call, or call `torch.compiler.reset()` after it so the next "
            "call compiles again (see the `unguarded` diagnosis for this change's own fix).")


SERVED_FIX = ("Turn Inductor's caches off for the compile after the change "
              "(`torch._inductor.config.force_disable_caches = True`, or "
              "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1): the caches key on the traced graph, not "
              "on a custom op's registered autograd formula or kernel, nor on Python code "
              "outside the graph, so torch._dynamo.reset() alone does not compile fresh.")


def served_across_reset(ctx: Any) -> str | None:
    """A compile after torch._dynamo.reset() served from the cache entry a compile before the
    reset stored: the headline's words, or None."""
    groups = hits_across_reset(ctx)
    if not groups:
        return None
    gen, hits = next(iter(groups.items()))
    reset = ctx.r.dynamo_resets(ctx.run_id).get(gen) or {}
    at = f" (line {reset['lineno']})" if reset.get("lineno") else ""
    caches = " and ".join(dict.fromkeys(e["cache"] for e, _ in hits))
    return (f"the compile after torch._dynamo.reset(){at} was served from the {caches} cache "
            "entry the compile before the reset stored, so what changed in between and is not "
            "in the cache key (a custom op's registered autograd or kernel) is as it was")


def late_words(late: dict[str, Any]) -> str:
    """A change after the last compile in a check's headline: its line, quoted."""
    call = late["call"]
    line = (call.get("line") or "").strip()
    said = f"`{line}`" if line else "a change"
    return (f"{said} (line {call.get('lineno')}) changed what the compiled graph had traced, "
            "after its last compile, and compiled code does not see it")
