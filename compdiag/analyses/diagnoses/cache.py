"""Compile caches, kind `cache`: a lookup torch bypassed (every warm start then pays a cold
compile: pytorch #192555), and a miss explained by the key components that changed since an
earlier compile of the same function (#152065, #141790) or by an entry missing from this
cache (#144859); and, as information, a compile after torch._dynamo.reset() served from an
entry a compile before the reset stored (#172024: the reset did not compile fresh).

A cold miss (no earlier compile of the function in the store) is not a diagnosis: it is what
every first run does; `show --json` says it under `caches[].why`. An explained miss ranks
below every other kind: it answers "why was this compile slow", it is not a fault."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from compdiag.analyses import caches as C
from compdiag.analyses.cache_artifacts import early_saves
from compdiag.analyses.cache_words import AOT_ONLY_EXPLANATION, BYPASS_EXPLANATION, \
    MISS_EXPLANATION, NOT_STORED_EXPLANATION, \
    NOT_STORED_FIX, ORDER_FIX, PEER_RANK_EXPLANATION, PEER_RANK_FIX, \
    PERF_FRESH_EXPLANATION, PERF_FRESH_FIX, RESET_EXPLANATION, SAME_KEY_EXPLANATION, \
    SAVE_EARLY_EXPLANATION, SAVE_EARLY_FIX, SAVE_EARLY_REASON, SAVE_EARLY_WHY
from compdiag.analyses.cache_changes import changed_globals, changed_line
from compdiag.analyses.cache_dir_set import FRESH_FIX, FRESH_REASON, SET_REASON, cache_dir_line
from compdiag.analyses.cached_compiles import hits_across_reset, served_from_cache
from compdiag.analyses.consequences import Causes
from compdiag.analyses.diagnosis import Details, Diagnosis, UserFrame
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.locate import CALL, FX_NODE, locate, source_line
from compdiag.analyses.marked_functions import by_name
from compdiag.analyses.ranking import Cost
from compdiag.analyses.rules import Words, every, first, found, one_of
from compdiag.analyses.unordered_loops import ordering_set
from compdiag.formats.command_line import command_line
from compdiag.formats.compile_id import display, generation
from compdiag.formats.user_code import is_user_file

KIND = "cache"
# A bypass: cost class `cache`; an explained miss: `cache_miss`, information about compile
# time below every fault (SPEC below).


@dataclass(frozen=True)
class CacheDetails(Details):
    omit_none: ClassVar[tuple[str, ...]] = ("compared_to",)
    caches: tuple[str, ...] = ()
    result: str = ""
    key: str | None = None
    changed: tuple[dict[str, Any], ...] = ()
    compared_to: dict[str, Any] | None = None


NOT_SAVED = "not_saved"  # CacheDetails.result of a save of the portable cache that saved nothing


def _missed_for_the_save(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    return isinstance(cause.details, CacheDetails) and cause.details.result == NOT_SAVED and \
        isinstance(effect.details, CacheDetails) and effect.details.result == "miss"


SPEC = KindSpec(KIND, title="compile cache", words=("cache", "caches"), style="green", tie=100,
                costs={"cache": Cost(120), "cache_miss": Cost(10)}, details=(CacheDetails,),
                causes=(Causes(KIND, KIND, SAVE_EARLY_WHY, _missed_for_the_save),))
BYPASS_SCORE = SPEC.score("cache")
MISS_SCORE = SPEC.score("cache_miss")


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


HOP_FIX = ("The graph holds a higher-order op the cache cannot serialize (pytorch/pytorch#149318):"
           " where warm starts matter, put the op in a small compiled function of its own, so "
           "the rest of the model's graphs are cached, or accept a cold compile for this graph.")
# A higher-order op torch provides (torch.cond, while_loop, scan) compiled once in the run: the
# program uses torch's API as meant, and nothing in the run paid for the bypass (probes37d
# cond_newton_clip_ok, a problem on a correct program); compiled again (after a reset, as in
# set5 cond_cache_bypass), the cold compile is the cost the run shows.
HOP_ONCE_WORDS = ", compiled once in this run"
TORCH_HOPS = ("cond", "while_loop", "scan", "associative_scan", "map", "flex_attention",
              "invoke_subgraph")
# Bypass reasons (torch's words; every word must be in the reason, analyses/rules.py) -> the fix.
BYPASS_RULES: tuple[tuple[Words, str], ...] = (
    (every("custom pass"), "Make the pass a torch._inductor.custom_graph_pass.CustomGraphPass "
     "(a class with __call__(graph) and uuid() returning a stable id, e.g. "
     "get_hash_for_files((__file__,))): a plain function has no stable identity, so Inductor "
     "cannot put it in the cache key and bypasses the cache."),
    (every("higherorderoperator"), HOP_FIX),
    (every("unpicklable type"), "An input or constant of that type cannot be hashed into the key: "
     "pass tensors or plain Python values instead, or give the object a stable __reduce__."),
    (every("torchbind"), "TorchBind objects cannot be cached: keep them out of the compiled graph "
     "or accept a cold compile."),
    (every("frozen constants"), "Freezing (torch._inductor.config.freezing) turns weights into "
     "constants the cache does not store: turn freezing off where warm starts matter."),
    (every("freezing"), "Freezing (torch._inductor.config.freezing) turns weights into constants "
     "the cache does not store: turn freezing off where warm starts matter."),
    (every("fx graph cache is not enabled"), "Set torch._inductor.config.fx_graph_cache = True (or "
     "TORCHINDUCTOR_FX_GRAPH_CACHE=1): the AOTAutograd cache needs it."),
    (every("raw callable without uuid"), "Wrap the callable in the Custom* class the reason names "
     "(it adds uuid()), so the cache can key on it."),
    (every("uuid() returned none"), "Return a stable string from uuid(), not None."),
    (every("cache_hash"), "Add a `cache_hash` attribute to the selective-checkpoint context_fn."),
    (every("unsupported call_function target"), "The graph calls a function AOTAutograd's cache "
     "does not know is safe: register it as a custom op (torch.library.custom_op), or set "
     "`import torch._functorch.config` and set "
     "torch._functorch.config.autograd_cache_allow_custom_autograd_functions where it applies."),
    (every("compiler bisector"), "The compiler bisector is on (compdiag bisect or "
     "TORCH_BISECT_*): the cache is off while it runs; nothing to fix."),
    (every("no shape env"), "Inductor was called without a ShapeEnv (a direct compile_fx call): "
     "go through torch.compile to get the cache."),
)
# Bypasses the program asked for (it turned the cache off, or a tool did): stated as
# information, not a problem with a fix; the setting is deliberate (corpus scripts that need a
# real compile turn the FX graph cache off, and so do users who time cold compiles).
DELIBERATE_BYPASSES: tuple[str, ...] = ("fx graph cache is not enabled", "compiler bisector",
                                        # freezing the program turned on: the documented
                                        # price of it (probes29b fullgraph_frozen_ok)
                                        "with freezing enabled", "frozen constants")
# What freezing itself leaves in the graph for the FX graph cache to refuse: its prepacked
# mkldnn weights, a consequence of the same setting when the run froze.
FROZEN_LEFTOVERS: tuple[str, ...] = ("mkldnn tensors unpickleable",)
# Bypasses torch's own code causes (the function the cache does not support is torch's, e.g.
# compiled autograd's validate_outputs): the program has nothing to change, so information.
TORCH_OWN_BYPASSES: tuple[Words, ...] = (
    every("unsupported call_function target", "function module: torch."),
    # torch's wrapper of an op with side effects (`torch.linalg.solve`'s error check): the
    # FX graph cache cannot serialize it (probes32g darcy_fd_solve_ok: a problem on a correct
    # program, whose only fix was not to compile the solve)
    every("HigherOrderOperator", "with_effects"),
)
TORCH_OWN_FIX = ("Nothing to change in your code: the function the cache refuses is torch's "
                 "own (its module is torch's), so this graph compiles cold on every start "
                 "until torch's cache supports it; a newer torch may.")
# A tensor subclass the AOTAutograd cache could not hash into its key: torch warns "X does not
# implement _stable_hash_for_caching" beside the bypass ("Failed to pickle cache key", the
# subclass' pickle failing on what it holds). The fix is the subclass author's: the user's
# own class gets torch's advice, torch's own (NestedTensor) is nothing the user can change.
UNHASHABLE_SUBCLASS = re.compile(r"^(\w+) does not implement _stable_hash_for_caching")
SUBCLASS_SAID = ", hashing the tensor subclass {name} (torch: \"{name} does not implement _stable_hash_for_caching\")"
SUBCLASS_FIX = ("Implement `_stable_hash_for_caching(self) -> str` on {name} (a string that "
                "identifies its non-tensor state), as torch advises: the AOTAutograd cache then "
                "hashes it instead of pickling it, and warm starts load the graph.")
TORCH_SUBCLASS_FIX = ("Nothing to change in your code: torch's own {name} cannot be hashed "
                      "into the AOTAutograd cache key yet, so this graph compiles cold on every "
                      "start until torch supports it; a newer torch may.")
BYPASS_FALLBACK = ("Remove what the reason names from the compiled graph or Inductor's config, "
                   "or accept a cold compile on every start.")
# AOTAutograd-only bypasses of an object the user's code passes, fixed by one line of theirs
# (probes40f sac_context_fn_cache_bypass: `cache_hash` on SAC's context_fn): problems.
USER_FIXED_BYPASSES: tuple[str, ...] = ("cache_hash", "raw callable without uuid",
                                        "uuid() returned none")
# Bypass reasons that name an Inductor config (torch's words, lower case) -> the config
# attributes a program sets, or the argument that passes the refused object: the user line is
# where it sets one, when its own files show it.
BYPASS_CONFIGS: tuple[tuple[Words, tuple[str, ...]], ...] = (
    (one_of("cache_hash"), ("context_fn",)),
    (one_of("post grad custom pass"), ("post_grad_custom_post_pass", "post_grad_custom_pre_pass")),
    (one_of("pre grad custom pass"), ("pre_grad_custom_pass",)),
    (one_of("joint custom pass"), ("joint_custom_pre_pass", "joint_custom_post_pass")),
    (one_of("_pre_fusion_custom_pass"), ("_pre_fusion_custom_pass",)),
    (one_of("_post_fusion_custom_pass"), ("_post_fusion_custom_pass",)),
    (one_of("_fuse_ddp_communication_pass"), ("_fuse_ddp_communication_passes",)),
    (one_of("frozen constants"), ("freezing",)),
    (one_of("freezing"), ("freezing",)),
)


def config_line(ctx: Any, cid: str | None, reason: str | None) -> UserFrame | None:
    """Where the program sets the config the bypass reason names: the first line assigning
    it (`...config.NAME = ...` or `NAME=` in a patch) in the user files the compile started
    from, the compiled function's file first."""
    names = first(BYPASS_CONFIGS, reason, default=())
    if not names:
        return None
    return source_line(ctx, cid, re.compile(r"\b(?:%s)\s*=(?!=)" %
                                             "|".join(map(re.escape, names))))


# A bypass whose refused node is the user's own construct (ingest/graph_calls.py stored the
# node): torch's target -> what it is in the user's words ({name}: the Function's class), the
# fix, and whether the line is the `with` statement enclosing the region's first op.
@dataclass(frozen=True)
class Construct:
    what: str
    fix: str
    region: bool = False
    word: str = ""  # a region's: the word its `with` statement names (autocast)


CONSTRUCTS: dict[str, Construct] = {
    "_enter_autocast": Construct(
        "a torch.autocast region",
        "AOTAutograd's cache refuses any graph that enters autocast itself (_enter_autocast), "
        "so this graph compiles cold on every start: enter the autocast region around the "
        "compiled call instead (`with torch.autocast(...): compiled(x)`), so the traced graph "
        "holds no _enter_autocast node, or accept a cold compile until torch caches autocast "
        "regions (pytorch#191106).", region=True, word="autocast"),
    "autograd_function_apply": Construct(
        "autograd.Function {name}",
        "AOTAutograd's cache refuses a graph with a custom autograd.Function unless you set "
        "`import torch._functorch.config; torch._functorch.config."
        "autograd_cache_allow_custom_autograd_functions = True` before compiling; do so when "
        "its forward and backward depend only on their inputs (no globals or closed-over "
        "state the cache key cannot see), or write the op as a torch.library.custom_op with "
        "register_autograd."),
}
# A function of the user's marked allow_in_graph: the graph calls it untraced, a target
# AOTAutograd's cache cannot vouch for (probes42f allow_in_graph_aot_cache_bypass).
MARKED_WHAT = "{fn}() (called untraced at line {call}), marked allow_in_graph,"
MARKED_FIX = ("Drop the allow_in_graph marking of {fn}() where Dynamo can trace it (tensors in, "
              "tensors out): its ops then go into the graph, which the cache stores. If it must "
              "stay untraced, declare it cacheable before compiling: "
              "`torch._inductor.config.unsafe_marked_cacheable_functions = {{\"{qual}\": \"1\"}}`"
              ", and change the \"1\" whenever {fn}() changes (the cache cannot see its code).")
_APPLY = re.compile(r"([A-Za-z_][\w]*)\.apply\s*\(")
_HOP_CALL = "torch.ops.higher_order."  # how Dynamo's graph calls a higher-order op


def user_construct(ctx: Any, node: dict[str, Any] | None,
                   markings: dict[str, dict[str, Any]]) -> tuple[str, str, UserFrame] | None:
    """(what, fix, line) of the user's construct a bypass refused, from the stored node: an
    autocast region at its `with` line (the statement enclosing the region's first op; torch
    notes no line for _enter_autocast itself), an autograd.Function at its `.apply` call;
    `markings`: the run's allow_in_graph markings by name (marked_functions.by_name)."""
    if not node or not node.get("target"):
        return None
    marking = markings.get(node["target"])
    if marking is not None and isinstance(marking.get("call"), dict):
        at, call = marking["call"], node.get("frame") or {}
        return (MARKED_WHAT.format(fn=node["target"], marked=at.get("lineno"),
                                   call=call.get("lineno", "?")),
                MARKED_FIX.format(fn=node["target"], qual=f"{node.get('module') or '__main__'}"
                                                           f".{node['target']}"),
                ctx.frame(at.get("filename"), at.get("lineno"), at.get("line"), FX_NODE))
    # Any other node the bypass names is placed at its own line all the same (a higher-order
    # op's call, torch.cond's, say): the construct torch refused is where the user wrote it.
    rule = CONSTRUCTS.get(node["target"]) or Construct(
        f"the higher-order op `{node['target']}`" if _HOP_CALL in (node.get("call") or "")
        else f"the call `{node['target']}`",
        HOP_FIX if _HOP_CALL in (node.get("call") or "") else "")
    frame = node.get("frame") or (node.get("after") if rule.region else None)
    if not frame or not is_user_file(ctx.resolve(frame.get("filename"))):
        return None
    where = ctx.frame(frame["filename"], frame["lineno"], frame.get("line"), FX_NODE)
    region = node.get("with") or {}  # the `with` ingest found around the region's first op
    if rule.region and rule.word in (region.get("line") or "") and region.get("lineno"):
        where = ctx.frame(region.get("filename") or frame["filename"], region["lineno"],
                          region.get("line"), FX_NODE)
    m = _APPLY.search(frame.get("line") or "")
    what = rule.what.format(name=m.group(1) if m else "(custom)")
    return what, rule.fix, where


def bypass_fix(reason: str | None) -> str:
    return first(BYPASS_RULES, reason, default=BYPASS_FALLBACK)


def deliberate(reason: str | None) -> bool:
    return found(DELIBERATE_BYPASSES, reason)


def torch_own(reason: str | None) -> bool:
    """Whether torch's own code is what the cache refused (TORCH_OWN_BYPASSES)."""
    return any(words.found_in(reason) for words in TORCH_OWN_BYPASSES)


def unhashable_subclass(ctx: Any, rows: list[dict[str, Any]]) -> tuple[str, bool] | None:
    """(the subclass, whether the user's code defines it) where torch warned, at one of these
    bypassed compiles, that a tensor subclass cannot be hashed into the cache key."""
    cids = {r["compile_id"] for r in rows}
    for w in ctx.r.torch_warnings(ctx.run_id):
        m = UNHASHABLE_SUBCLASS.match(w.get("message") or "")
        if m is not None and (w.get("compile_id") in cids or not w.get("compile_id")):
            name = m.group(1)
            users = any(re.search(rf"^\s*class {name}\b", ctx.source_text(path) or "", re.M)
                        for path in ctx.r.source_paths(ctx.run_id))
            return name, users
    return None


def _bypasses(ctx: Any, events: list[dict[str, Any]]) -> list[Diagnosis]:
    """One diagnosis per bypass reason, over the caches and compiles it bypassed (the FX
    graph cache's reason is usually the AOTAutograd cache's too); one per user construct
    the bypasses refused, whatever words each cache used for it (the FX graph cache's
    "Can't cache HigherOrderOperator: cond" and AOTAutograd's "Unsupported call_function
    target cond" are one torch.cond)."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    constructs: dict[tuple, tuple[str, str, UserFrame]] = {}
    marked: set[tuple] = set()  # a function of the user's marking: its one line fixes it
    markings = by_name(ctx) if any(e["result"] == "bypass" and e.get("node")
                                   for e in events) else {}
    for e in events:
        if e["result"] == "bypass":
            node = json.loads(e["node"]) if e.get("node") else None
            mine = user_construct(ctx, node, markings)
            key = (("construct", mine[0], mine[2].filename, mine[2].lineno) if mine
                   else ("reason", e.get("reason") or "?"))
            groups.setdefault(key, []).append(e)
            if mine:
                constructs[key] = mine
                if node["target"] in markings:
                    marked.add(key)
    frozen = any(found(("freezing", "frozen constants"), e.get("reason")) for e in events)
    out = []
    for key, rows in groups.items():
        cid = rows[0]["compile_id"]
        caches = tuple(dict.fromkeys(r["cache"] for r in rows))
        reason = " / ".join(dict.fromkeys(r.get("reason") or "?" for r in rows))
        asked, torchs = deliberate(reason) or (frozen and found(FROZEN_LEFTOVERS, reason)), \
            torch_own(reason)
        # AOTAutograd's cache alone, while Inductor's looked every such compile up
        aot_only = caches == ("aotautograd",) and _fx_looked_up(events, rows)
        mine = constructs.get(key)  # the refused node is the user's own construct
        # torch's own function, called at the user's line, stays torch's (no fix of its own)
        torchs = torchs and (mine is None or not mine[1])
        hop_once = mine is not None and mine[1] == HOP_FIX and any(
            f"`{op}`" in mine[0] for op in TORCH_HOPS) and len(
            {r["compile_id"] for r in rows if r["compile_id"]}) == 1
        said = f"{' '.join(reason.split())}"  # torch writes some over several lines
        if mine is not None:
            said = f"{mine[0]} (line {mine[2].lineno}) cannot be cached: {said}" + (
                HOP_ONCE_WORDS if hop_once else "")
        subclass = unhashable_subclass(ctx, rows) if mine is None else None
        if subclass is not None:
            name, users = subclass
            said += SUBCLASS_SAID.format(name=name)
            mine = (name, (SUBCLASS_FIX if users else TORCH_SUBCLASS_FIX).format(name=name),
                    None)
            torchs = torchs or not users
        out.append(Diagnosis(
            KIND, stage="cache", compile_id=cid,
            reason=f"{' and '.join(caches)} cache{'s' if len(caches) > 1 else ''} bypassed: "
                   f"{said}",
            user_frame=(mine[2] if mine else None) or config_line(ctx, cid, reason)
            or locate(ctx, cid),
            explanation=AOT_ONLY_EXPLANATION if aot_only else BYPASS_EXPLANATION,
            fix=(mine[1] if mine and mine[1] else TORCH_OWN_FIX if torchs
                 else bypass_fix(reason)),
            count=len(rows),
            # (an AOTAutograd-only bypass keeps its cost among the information: the first
            # thing to know of a run with nothing wrong, corpus cache_bypass_custom_function)
            score=SPEC.score("info") if asked or torchs or hop_once else BYPASS_SCORE,
            severity="info" if asked or torchs or hop_once or aot_only and not (found(
                USER_FIXED_BYPASSES, reason) or key in marked) else "problem",
            compile_ids=tuple(dict.fromkeys(r["compile_id"] for r in rows if r["compile_id"])),
            details=CacheDetails(caches=caches, result="bypass")))
    return out


def _fx_looked_up(events: list[dict[str, Any]], rows: list[dict[str, Any]]) -> bool:
    """Inductor's FX graph cache served or stored a graph of every compile in `rows`."""
    looked = {e["compile_id"] for e in events
              if e["cache"] == "fx_graph" and e["result"] in ("hit", "miss")}
    return bool(rows) and all(r["compile_id"] in looked for r in rows)


def _miss(ctx: Any, e: dict[str, Any], why: C.MissExplained) -> Diagnosis | None:
    cid, cache = e["compile_id"], e["cache"]
    ref = why.compared_to or {}
    where = f"run {ref.get('run_id')} ({ref.get('compile_id')})"
    reset = None
    if ref.get("run_id") == ctx.run_id:  # the same process, before torch._dynamo.reset()
        reset = ctx.r.dynamo_resets(ctx.run_id).get(generation(cid)) or {}
        at = (f" at {Path(reset['filename']).name}:{reset['lineno']}"
              if reset.get("filename") and reset.get("lineno") else "")
        where = f"{display(ref.get('compile_id'))}, the compile before torch._dynamo.reset(){at}"
    peer = _same_job(ctx, ref.get("run_id"))
    where_set = None  # the program's line that sets the cache directory, where it does
    beside = hit_beside(ctx, e) if why.status == "same_key" else None
    perf_fresh = why.status == "same_key" and ctx.r.perf_run(ctx.run_id) is not None
    if why.status == "same_key" and peer is not None:
        # another rank of this job compiled the same graph at the same time: neither found
        # the other's entry because neither had written it yet (expected, not a lost cache)
        reason = (f"{cache} cache missed while rank {peer} of this job compiled the same graph "
                  f"({ref.get('compile_id')}, run {ref.get('run_id')}) at the same time")
        explanation, fix = PEER_RANK_EXPLANATION, "Nothing to fix: " + PEER_RANK_FIX
    elif perf_fresh:  # probes39g quantile_tabular_nan_ok: perf's own run, explained
        reason = (f"{cache} cache missed although {where} compiled this graph with the same "
                  "key: `compdiag perf` runs the program with a fresh cache directory")
        explanation, fix = PERF_FRESH_EXPLANATION, "Nothing to fix: " + PERF_FRESH_FIX
    elif why.status == "same_key" and beside:
        # another cache of the same compile hit an entry of that run: the directory is the
        # same, so the earlier run never stored this one (not a directory to point at)
        reason = (f"{cache} cache missed although {where} compiled this graph with the same "
                  f"key: that run did not store the entry ({beside} hit in the "
                  "same directory)")
        explanation, fix = NOT_STORED_EXPLANATION, "Nothing to fix: " + NOT_STORED_FIX
    elif why.status == "same_key":
        reason = f"{cache} cache missed although {where} compiled this graph with the same key"
        explanation, fix = SAME_KEY_EXPLANATION, (
            "Point TORCHINDUCTOR_CACHE_DIR at the directory the earlier run wrote (copy it whole, "
            "fxgraph/ and aotautograd/ included), or keep it from being cleared.")
        own = cache_dir_line(ctx, (*(ctx.argv or [])[:1], (ctx.code_row(cid) or {}).get(
            "filename")))
        if own is not None:  # the program picks the directory itself (cache_dir_set.py)
            where_set, fresh = own
            reason += (FRESH_REASON if fresh else SET_REASON).format(lineno=where_set.lineno)
            fix = FRESH_FIX.format(lineno=where_set.lineno) if fresh else fix
    elif why.changes:
        shown = [c.summary for c in why.changes[:3]]
        more = f" (+{len(why.changes) - 3} more)" if len(why.changes) > 3 else ""
        reason = f"{cache} cache missed: key differs from {where} in {'; '.join(shown)}{more}"
        explanation, fix = MISS_EXPLANATION, (
            "Keep the named components the same between runs (set configs before the first "
            "compile, the same way each time) where warm starts matter; a changed graph or "
            "input shape is expected to miss.")
        if reset is not None:
            explanation, fix = RESET_EXPLANATION, (
                "Change configs, input dtypes and devices, and torch.use_deterministic_"
                "algorithms() before the first compile rather than between compiles, or accept "
                "a cold compile after each change; a changed graph is expected to miss.")
    else:
        return None  # a key that changed with no components logged: nothing to name
    frame = None
    moved = changed_globals(ctx, ref.get("compile_id"), cid) if reset is not None else []
    if moved:  # the graph baked in a global that changed between the two compiles
        reason += "; " + "; ".join(f"the global {name} changed {a} -> {b}"
                                   for name, a, b in moved)
        frame = source_line(ctx, cid, re.compile(r"\b%s\s*=(?!=)" % re.escape(moved[0][0])),
                             reset)
        fix = GLOBAL_CONSTANT_FIX.format(name=moved[0][0])
    loop = ordering_set(ctx, cid, why.changes) if not moved else None
    if loop is not None:  # traced or passed in the order a set yields (cache_words.ORDER_*)
        frame, explanation, fix = loop[0], loop[2], ORDER_FIX.format(name=loop[1])
        if all(c.component.startswith("example_inputs") for c in why.changes):  # just moved
            reason = (f"{cache} cache missed: the same {len(why.changes)} inputs as {where} "
                      "had, in another order")
        reason += f"; the code iterates the set `{loop[1]}` (line {frame.lineno})"
    frame = frame or (changed_line(ctx, cid, why.changes, reset) if why.changes else None)
    # A key whose graph or inputs changed is another program (other arguments, settings,
    # sizes; after a reset, other code traced): expected to miss, as the fix says, not a fault.
    expected = (peer is not None or bool(beside) or perf_fresh) and \
        why.status == "same_key" or (
        not moved and loop is None and bool(why.changes)
        and all(c.component.startswith(GRAPH_COMPONENTS) for c in why.changes))
    return Diagnosis(KIND, stage="cache", compile_id=cid, reason=reason,
                     user_frame=frame or where_set or locate(ctx, cid), fix=fix,
                     explanation=explanation, score=MISS_SCORE,
                     severity="info" if expected else "problem",
                     details=CacheDetails(caches=(cache,), result="miss", key=e.get("key"),
                                          changed=tuple(c.to_json() for c in why.changes),
                                          compared_to=why.compared_to))


def _same_job(ctx: Any, run_id: Any) -> Any:
    """The rank of run `run_id` when it is another rank of this run's job, else None."""
    job = (ctx.run or {}).get("job")
    if not job or not isinstance(run_id, int) or run_id == ctx.run_id:
        return None
    try:
        other = ctx.r.run(run_id)
    except Exception:  # noqa: BLE001 - a run the store no longer has: no peer
        return None
    return other.get("rank") if other.get("job") == job else None


def hit_beside(ctx: Any, e: dict[str, Any]) -> str | None:
    """The other cache whose lookup for the same compile hit, when one did."""
    return next((o["cache"] for o in ctx.r.cache_events(ctx.run_id)
                 if o.get("compile_id") == e["compile_id"] and o.get("cache") != e["cache"]
                 and o.get("hit")), None)


# Key components that are the graph and its inputs (which inputs are static parameters
# follows from the graph): a key differing only in them is another graph.
GRAPH_COMPONENTS = ("gm", "example_inputs[", "fx_kwargs[static_input_idxs]")


# A global the traced graph holds as a constant: each value is another graph, another key.
GLOBAL_CONSTANT_FIX = (
    "The compiled graph holds the global {name}'s value as a constant, so each new value is a "
    "new graph with a new cache key (and a recompile without the reset): pass it to the "
    "compiled function as an argument, as a tensor (`torch.tensor({name})`), so one graph and "
    "one cache entry serve every value. If each value should compile anew, nothing to fix.")


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    events = ctx.r.cache_events(ctx.run_id)
    out = _bypasses(ctx, events)
    misses: dict[tuple, list[Diagnosis]] = {}
    for e in events:
        if e["result"] != "miss":
            continue
        why = C.explain_miss(ctx.r, ctx.run_id, e, ctx.code_row(e["compile_id"]))
        if why.status in ("cold", "unknown"):
            continue
        d = _miss(ctx, e, why)
        if d is not None:
            misses.setdefault((e["compile_id"], e["cache"]), []).append(d)
    out += [_one_panel(key[1], ds) for key, ds in misses.items()]
    return out + _early_saves(ctx) + _hits_across_reset(ctx) + _served_from_cache(ctx)


def _early_saves(ctx: Any) -> list[Diagnosis]:
    """A save of the portable cache made before anything compiled: at the save's line."""
    n = len(ctx.compiles)
    return [Diagnosis(
        KIND, stage="cache", compile_id=None,
        reason=SAVE_EARLY_REASON.format(line=d["call"]["lineno"],
                                        compiles=f"{n} graph{'s' if n != 1 else ''}"),
        user_frame=ctx.frame(d["call"].get("filename"), d["call"]["lineno"],
                             d["call"].get("line"), CALL),
        explanation=SAVE_EARLY_EXPLANATION, fix=SAVE_EARLY_FIX, score=BYPASS_SCORE,
        details=CacheDetails(caches=("portable",), result=NOT_SAVED)) for d in early_saves(ctx)]


def _one_panel(cache: str, misses: list[Diagnosis]) -> Diagnosis:
    """One diagnosis for a compile's misses in one cache: a training compile looks its
    forward and its backward graph up, and two panels about one compile's cache read as a
    contradiction ("the graph changed" and "the same graph", probes25's torchrun import) when
    each is about another graph. Each graph's answer is said in order of lookup; the most
    severe one's fix and details lead."""
    if len(misses) == 1:
        return misses[0]
    lead = max(misses, key=lambda d: (d.severity == "problem", d.score))
    said = f"{cache} cache missed"
    parts = [d.reason[len(said):].lstrip(": ") if d.reason.startswith(said) else d.reason
             for d in misses]
    parts = [p if p.startswith(("key ", "missed")) else "missed " + p for p in parts]
    reason = (f"{said} on {len(misses)} graphs of {display(lead.compile_id)}: " + "; ".join(
        f"graph {i} {p}" for i, p in enumerate(parts, 1)))
    fixes = list(dict.fromkeys([lead.fix] + [d.fix for d in misses]))
    return replace(lead, reason=reason, fix=" ".join(f for f in fixes if f),
                   count=len(misses))


HIT_AFTER_RESET_EXPLANATION = (
    "torch._dynamo.reset() (torch.compiler.reset()) drops Dynamo's compiled code and guards, "
    "not Inductor's caches on disk: the compile after it traced the function again, found the "
    "same key and loaded what the compile before the reset had stored, so it was not the "
    "fresh compile a reset is often called for (to time a cold compile, or to see a config "
    "change take effect).")


def _hits_across_reset(ctx: Any) -> list[Diagnosis]:
    """Information for each torch._dynamo.reset() whose next compiles were served from the
    cache entries a compile before it made in this very process (issue 29 §5: a compile
    after a reset is explained against the one before it, hit or miss)."""
    resets = ctx.r.dynamo_resets(ctx.run_id)
    groups = hits_across_reset(ctx)
    out = []
    for gen, hits in groups.items():
        reset = resets.get(gen) or {}
        at = (f" at line {reset['lineno']}" if reset.get("lineno") else "")
        cids = tuple(dict.fromkeys(e["compile_id"] for e, _ in hits))
        caches = tuple(dict.fromkeys(e["cache"] for e, _ in hits))
        made = display(hits[0][1].get("compile_id"))
        out.append(Diagnosis(
            KIND, stage="cache", compile_id=cids[0],
            reason=f"compiled from the cache after torch._dynamo.reset(){at}: "
                   f"{display(cids[0])} hit the {' and '.join(caches)} "
                   f"cache{'s' if len(caches) > 1 else ''} with the entry {made} stored "
                   "before the reset",
            user_frame=locate(ctx, cids[0]), explanation=HIT_AFTER_RESET_EXPLANATION,
            fix="Nothing is wrong if a warm compile is what you want. For a compile from "
                "scratch after a reset, turn Inductor's caches off as well: "
                "`torch._inductor.config.force_disable_caches = True` (or "
                "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1) before the compile.",
            score=MISS_SCORE, count=len(cids), compile_ids=cids, severity="info",
            details=CacheDetails(caches=caches, result="hit", key=hits[0][0]["key"],
                                 compared_to={"run_id": ctx.run_id,
                                              "compile_id": hits[0][1].get("compile_id")})))
    return out


# A compile served from the FX graph cache made elsewhere (analyses/cached_compiles.py).
SERVED_EXPLANATION = (
    "On an FX graph cache hit Inductor loads the compiled code and replays neither lowering "
    "nor scheduling, so this run has none of the facts those produce: perf hints, fusion "
    "decisions (the eager fallbacks are still read from the cached output code). This store "
    "never saw the compile that made the entry, so compdiag cannot carry them over; a cold "
    "compile records them.")


def _served_from_cache(ctx: Any) -> list[Diagnosis]:
    """One information line for the run's compiles served from an FX graph cache entry this
    store never saw made: the lowering-time facts are missing, not absent."""
    unknown = [h for h in served_from_cache(ctx) if h["origin"] is None and h["compile_id"]]
    if not unknown:
        return []
    cids = tuple(dict.fromkeys(h["compile_id"] for h in unknown))
    shown = ", ".join(display(c) for c in cids[:5]) + (", ..." if len(cids) > 5 else "")
    return [Diagnosis(
        KIND, stage=None, compile_id=cids[0],
        reason=f"served from the FX graph cache ({len(cids)} "
               f"{'compile' if len(cids) == 1 else 'compiles'}: {shown}): lowering-time facts "
               "(perf hints, fusion decisions) are missing from this run",
        user_frame=locate(ctx, cids[0]), explanation=SERVED_EXPLANATION,
        fix="Nothing is wrong. To see those facts, run it once more with Inductor's caches "
            "off: " + ctx.rerun_command(env={"TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"})
            + "; later warm runs into this store then carry them over.",
        score=MISS_SCORE, count=len(cids), compile_ids=cids, severity="info",
        details=CacheDetails(caches=("fx_graph",), result="hit",
                             key=unknown[0]["key"]))]
