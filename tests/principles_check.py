"""Issue 29's principles §2 to §6 over one stored run (§1, and §2 by the kinds' declared
relations: tests/locate_check.py).
tests/test_corpus.py checks them over every corpus run, tests/test_principles.py over every
fixture store and over hand-made bad stores each must reject.

Each function reads the store's facts (what torch and capture recorded) and explain's
document for the run (`explain --json`'s diagnoses), and returns one line per violation:

§2 the cause above its consequences, by the facts: a resume function's recompile on a value
   passed across its graph break is folded under the break; a recompile-limit failure never
   ranks above the recompile that hit the limit; a failure of a frame torch skipped never
   above its graph break.
§3 no silent end: a run that ended abnormally (non-zero exit, a signal) has a problem
   diagnosis saying how it ended, and at a user line when the store holds one for its end;
   no graph break, recompile or perf diagnosis ranks above it unless it is its cause.
§4 accuracy: every measured accuracy diagnosis names the output or gradient, the float64
   verdict where the check compared against float64, and a line that exists in the file; and
   every compared graph that differed is diagnosed.
§5 compile identity: no compile id of the store spans a `torch._dynamo.reset()` (one
   dynamo_start per compile id; a compile after a reset carries that reset's generation), and
   a cache miss explained against a compile before a reset says so, and a compile after a
   reset served from an entry a compile before it stored is said (information at least).
§6 CUDA-graph re-recordings: a function cudagraph_trees recorded for two or more input sizes
   is diagnosed, and a re-recording diagnosis counts what torch counted (its recordings, its
   trees for new int keys, its "observed N distinct sizes" warning), no fewer and no more.
§8 options: a fix never tells the user to change an option the run did not set (a graph
   break's fix never names fullgraph: the break shows it was off).
§9 words: a headline never says a glossary term only in torch's phrasing of it, and no
   reason, explanation or fix spells a guard's source as torch does (`L['cfg']` for `cfg`).
§1 torch's words: a graph break raised from another exception names, in its headline, what
   that cause says torch refused (refused_problems); a failure whose message points at a
   user op ("Error in op: ...") is diagnosed at that op's line (pointed_line_problems); a
   failure whose message says where its tensor was made ("Stack trace: File ...") at another
   user line shows that line as details.made_at (made_at_problems); a failure while Dynamo
   traced, whose message lists the user code it traced, is at a line the message names
   (traced_line_problems).
§1/§3 who is at fault for a fake-tensor run that raised (fake_run_problems): torch's own
   kernel, or an exception the program's own try/except catches in eager, is never told to
   check the line in eager nor offered the minifier."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Iterable

from compdiag.formats.compile_id import CompileId
from compdiag.formats.user_code import is_user_file
from compdiag.store.reader import Reader
from corpus_check import says_how_it_ended


def _all(diagnoses: list[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    """Every diagnosis of explain's document, those folded under a cause included."""
    for d in diagnoses:
        yield d
        yield from d.get("consequences") or []


def _generation(cid: str | None) -> int:
    try:
        return CompileId.parse(cid).generation if cid else 0
    except ValueError:
        return 0


# -- §2 (from the facts, whatever relations the kinds declare: locate_check.py checks those) --
def consequence_fact_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                              ) -> list[str]:
    """Consequences the store's facts make so, never shown above (or apart from) their
    cause: a resume function's recompile on a value passed across its graph break
    (`___stackN`); Dynamo's recompile-limit failure, where the guard that kept failing is
    diagnosed; the failure of a frame torch skipped after a graph break."""
    out = []
    rank = {id(d): i for i, d in enumerate(diagnoses)}

    def first(kind: str, cids: set) -> dict[str, Any] | None:
        return next((d for d in diagnoses if d["kind"] == kind and cids & {
            d.get("compile_id"), *(d.get("compile_ids") or [])}), None)

    def frame(cid: str | None) -> Any:
        try:
            c = CompileId.parse(cid) if cid else None
        except ValueError:
            return None
        return c and (c.frame, c.generation)

    skipped = {g["compile_id"] for g in reader.graph_breaks(run_id) if g.get("frame_skipped")}
    for d in diagnoses:
        details = d.get("details") or {}
        if d["kind"] == "recompile" and is_resume_function(details.get("function")) and \
                is_stack_value(details.get("guard")):
            out.append(f"recompile {d['reason'][:60]!r} of a value passed across a graph "
                       "break is shown on its own, not under the break")
        if d["kind"] != "failure":
            continue
        if details.get("recompile_limit") or details.get("exc_type") in LIMIT_TYPES:
            cids = {c["compile_id"] for c in reader.compiles(run_id)
                    if frame(c["compile_id"]) == frame(d.get("compile_id"))}
            cause = first("recompile", cids) if d.get("compile_id") else next(
                (x for x in diagnoses if x["kind"] == "recompile"
                 and (x.get("details") or {}).get("limit_hit")), None)
            if cause is not None and rank[id(cause)] > rank[id(d)]:
                out.append(f"the recompile-limit failure {d['reason'][:50]!r} ranks above "
                           f"the recompile that hit the limit {cause['reason'][:50]!r}")
        if details.get("exc_type") == "Unsupported" and d.get("compile_id") in skipped:
            cause = first("graph_break", {d["compile_id"]})
            if cause is not None and rank[id(cause)] > rank[id(d)]:
                out.append(f"the failure {d['reason'][:50]!r} of a frame torch skipped ranks "
                           f"above its graph break {cause['reason'][:50]!r}")
    return out


def is_resume_function(name: str | None) -> bool:
    """Dynamo's code object for the rest of a function after a graph break (spelled here,
    apart from compdiag's own definition, so the property does not share its bugs)."""
    return bool(name) and name.startswith("torch_dynamo_resume_in_")


def is_stack_value(source: str | None) -> bool:
    """A resume function's argument holding a value from the stack at its break, or a part
    of it (its size: `L['___stack0'].size()[0]`, the masked-select count of
    benchmarks/probes23/masked_token_loss.py, shown apart before)."""
    return bool(re.match(r"^(?:L\[['\"])?___stack\d+(?:['\"]\])?(?:[.\[]|$)", source or ""))


# Dynamo's exception when a function hits the recompile limit under fullgraph=True.
LIMIT_TYPES = ("FailOnRecompileLimitHit", "RecompileLimitExceeded")


# -- §3 ------------------------------------------------------------------------------------
def ending_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                    ) -> list[str]:
    """A run whose program ended abnormally has a diagnosis saying how, at a user line when
    the store holds one (the exception's frames, the stack faulthandler left, os._exit's
    call); a run that exited 0 has no program diagnosis saying it ended badly."""
    code = reader.run(run_id).get("exit_code") or 0
    ends = reader.program_ends(run_id)
    abnormal = code != 0 or any(e.get("signal") for e in ends)
    told = [d for d in diagnoses if says_how_it_ended(d)]
    if not abnormal:
        return ["the run exited 0 and a program diagnosis says it ended badly"] \
            if any(d["kind"] == "program" for d in told) else []
    if not told:
        return [f"the run ended with status {code} and no diagnosis says how "
                f"(kinds: {[d['kind'] for d in diagnoses]})"]
    # what ended the program never says it went on uncompiled (probes42a
    # gpt2_inverse_layer_idx_regional_fullgraph: "now runs in eager" of a limit that raised)
    for d in _all(diagnoses):
        if (d.get("details") or {}).get("fatal") or \
                "ended the program" in (d.get("explanation") or ""):
            said = f"{d.get('reason')} {d.get('fix')}"
            if any(w in said for w in GOES_ON):
                return [f"{d['kind']} {d['reason'][:60]!r} ended the program and says it "
                        f"went on uncompiled"]
    held = [f for e in [*reader.program_exceptions(run_id), *ends]
            for f in e.get("frames") or [] if is_user_file(f.get("filename"))
            and f.get("lineno")] + _dumped_user_frames(reader, run_id)
    if held and not any((d.get("user_frame") or {}).get("lineno") for d in told):
        return [f"{told[0]['kind']} {told[0]['reason'][:60]!r} says how the run ended at no "
                f"line, while the store holds {Path(held[-1]['filename']).name}:"
                f"{held[-1]['lineno']}"]
    return []


# Words of a program that went on after a compile gave up (never of one that ended there).
GOES_ON = ("now runs in eager", "now run in eager", "now runs uncompiled")
# Kinds whose diagnoses never outrank how a run ended unless they are declared its cause.
NOT_AN_ENDING = ("graph_break", "recompile", "perf", "fusion", "cudagraph", "cache", "ddp")


def ending_rank_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                         ) -> list[str]:
    """§2/§3: a run that ended abnormally has the diagnosis saying how it ended ranked above
    every graph break, recompile and perf diagnosis (but an exit the program chose, below a
    recompile every step), unless that one is declared its cause
    (the ending is folded under it, or it carries the ending); a graph break is never above
    the ending it is a consequence of."""
    code = reader.run(run_id).get("exit_code") or 0
    if code == 0 and not any(e.get("signal") for e in reader.program_ends(run_id)):
        return []
    at = next((i for i, d in enumerate(diagnoses) if says_how_it_ended(d) or any(
        says_how_it_ended(c) for c in d.get("consequences") or [])), None)
    if at is None:
        return []  # ending_problems says the end is silent
    # An exit the program chose (sys.exit) ranks below a recompile every step: what makes a
    # step-time watchdog exit is the news, the exit the program printed why for is not.
    chosen = (diagnoses[at].get("details") or {}).get("ended") == "sys.exit"
    return [f"{d['kind']} {d['reason'][:50]!r} ranks above how the run ended "
            f"({diagnoses[at]['reason'][:50]!r}) and did not cause it"
            for d in diagnoses[:at] if d["kind"] in NOT_AN_ENDING
            and not (chosen and (d.get("details") or {}).get("recurring"))]


def break_end_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                       ) -> list[str]:
    """§3 with §1/§2: a native end (a signal) while only Dynamo's eval frame ran (its stack
    has eval_frame.py as the innermost compiled frame: no graph, no generated module) in a
    call whose graph break's user traceback passes through the call site is Dynamo's code
    generated for that break: the diagnosis saying how the run ended is at the break's line,
    not at the call (the cause is the break; the end is its consequence)."""
    out = []
    deeper = ("torchinductor_", "_inductor/", "_functorch/_aot_autograd/")
    for end in reader.program_ends(run_id):
        frames = end.get("frames") or []
        files = [f.get("filename") or "" for f in frames]
        at = next((i for i, fn in enumerate(files) if fn.endswith("torch/_dynamo/eval_frame.py")),
                  None)
        if not end.get("signal") or at is None or any(m in fn for fn in files for m in deeper):
            continue
        site = [f for f in frames[:at] if is_user_file(f.get("filename"))]
        if not site:
            continue
        breaks = [g["lineno"] for g in reader.graph_breaks(run_id) if any(
            (f.get("filename"), f.get("lineno")) == (site[-1]["filename"], site[-1]["lineno"])
            for f in (g.get("user_stack") or [])[:-1])]
        told = [d for d in diagnoses if says_how_it_ended(d)]
        if breaks and told and (told[0].get("user_frame") or {}).get("lineno") not in breaks:
            out.append(f"the run was killed in Dynamo's code for the graph break at line "
                       f"{breaks[0]}, the ending is at "
                       f"{(told[0].get('user_frame') or {}).get('lineno')}")
    return out


_DUMPED = re.compile(r'^\s*File "(?P<file>[^"\n]+)", line (?P<line>\d+)', re.M)


def _dumped_user_frames(reader: Reader, run_id: int) -> list[dict[str, Any]]:
    """The user frames of any thread in the stack dumps the program left (faulthandler's,
    read here from the raw `program_end` records, apart from ingest's parser)."""
    out = []
    for rec in reader.records(run_id, kind="compdiag:program_end"):
        try:
            end = json.loads(rec.get("payload") or "")
        except ValueError:
            continue
        text = f"{end.get('fault') or ''}\n{end.get('stderr_tail') or ''}" \
            if isinstance(end, dict) else ""
        out += [{"filename": m.group("file"), "lineno": int(m.group("line"))}
                for m in _DUMPED.finditer(text) if is_user_file(m.group("file"))]
    return out


# -- §4 ------------------------------------------------------------------------------------
def _file_line(filename: str | None, lineno: Any) -> str | None:
    try:
        lines = Path(filename or "").read_text(errors="replace").splitlines()
    except OSError:
        return None
    return lines[int(lineno) - 1].strip() if isinstance(lineno, int) and \
        1 <= lineno <= len(lines) else None


def accuracy_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                      ) -> list[str]:
    """Every measured accuracy diagnosis names its output or gradient (in its reason), the
    float64 verdict when the row it reports was compared against float64, and a user line
    that exists (a line of that file, not blank, with its text); every compiled graph whose
    check differed is diagnosed."""
    rows = reader.accuracy(run_id)
    out = []
    diagnosed = set()
    for d in _all(diagnoses):
        if d["kind"] != "accuracy":
            continue
        diagnosed.add(d.get("compile_id"))
        details = d.get("details")
        if details is None:  # a folded consequence: its cause is checked
            continue
        if "output" not in details:  # an injector in the config: nothing was measured
            continue
        if d.get("severity") == "info" and details.get("output") is None:
            continue  # information about no one output (a graph not compared, a setting)
        name, reason = details.get("output"), d.get("reason") or ""
        if not name or name not in reason:
            out.append(f"accuracy {reason[:60]!r} does not name its output ({name!r})")
        mine = [r for r in rows if r.get("compile_id") == d.get("compile_id")
                and r.get("output") == name]
        if any((r.get("detail") or {}).get("fp64") for r in mine) and not (
                details.get("verdict") and details.get("fp64")):
            out.append(f"accuracy {reason[:60]!r} was compared against float64 and names "
                       "no verdict")
        uf = d.get("user_frame") or {}
        text = _file_line(uf.get("filename"), uf.get("lineno"))
        if not text or not (uf.get("line") or "").strip():
            out.append(f"accuracy {reason[:60]!r} points at {uf.get('filename')}:"
                       f"{uf.get('lineno')} ({uf.get('line')!r}), not a line of that file")
    for r in rows:
        verdict = (r.get("detail") or {}).get("verdict")
        differed = not r.get("ok") and not (r.get("detail") or {}).get("within_tolerance")
        if (differed or verdict in ("ill_conditioned", "compiled_more_accurate")) and \
                r.get("compile_id") not in diagnosed:
            out.append(f"compile {r.get('compile_id')}'s output {r.get('output')} differed "
                       f"({verdict or 'not ok'}) and no accuracy diagnosis reports it")
            diagnosed.add(r.get("compile_id"))
    return out


# -- §5 ------------------------------------------------------------------------------------
def reset_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                   ) -> list[str]:
    """No compile id spans a reset: each compile id has one dynamo_start, and a compile that
    started after a reset carries a generation at least that reset's; a cache diagnosis
    explained against a compile of an earlier generation says it was before a reset."""
    out = []
    # each reset capture saw (its own record, in the run's record order) begins a generation,
    # once a compile started since the last one did (docs/explain.md: a reset before any
    # compile of its generation advances nothing)
    started = sorted(r["seq"] for r in reader.records(run_id, kind="dynamo_start",
                                                      with_payload=False))
    resets, last = [], 0
    for rec in reader.records(run_id, kind="compdiag:dynamo_reset", with_payload=False):
        if any(last < seq < rec["seq"] for seq in started):
            resets.append((rec["seq"], len(resets) + 1))
        last = rec["seq"]
    starts: dict[str, int] = {}
    for rec in reader.records(run_id, kind="dynamo_start"):
        cid = rec.get("compile_id")
        if cid is None:
            continue
        starts[cid] = starts.get(cid, 0) + 1
        before = [g for seq, g in resets if seq < rec["seq"]]
        if before and _generation(cid) < max(before):
            out.append(f"compile {cid} started after reset {max(before)} and is named as a "
                       "compile before it")
    out += [f"compile id {cid} names {n} compiles (dynamo_start {n} times)"
            for cid, n in starts.items() if n > 1]
    for d in _all(diagnoses):
        ref = ((d.get("details") or {}).get("compared_to") or {})
        if d["kind"] != "cache" or ref.get("run_id") != run_id:
            continue
        if _generation(ref.get("compile_id")) < _generation(d.get("compile_id")) and \
                "reset" not in f"{d.get('reason')} {d.get('explanation')}".lower():
            out.append(f"cache {d.get('reason', '')[:60]!r} of {d.get('compile_id')} is "
                       f"explained against {ref.get('compile_id')}, before a reset, and does "
                       "not say so")
    # a compile after a reset served from an entry a compile before it stored (the reset did
    # not compile fresh) is said, as information at least, under that compile's id
    made: dict[tuple[str, str], int] = {}
    told = {c for d in _all(diagnoses) if d["kind"] == "cache"
            for c in [d.get("compile_id"), *(d.get("compile_ids") or [])] if c}
    for e in reader.cache_events(run_id):
        key = (e.get("cache"), e.get("key"))
        if not e.get("key"):
            continue
        gen = _generation(e.get("compile_id"))
        if e.get("result") == "miss":
            made.setdefault(key, gen)
        elif e.get("result") == "hit" and made.get(key, gen) < gen and \
                e.get("compile_id") not in told:
            out.append(f"compile {e.get('compile_id')} after a reset hit the {e.get('cache')} "
                       "cache with an entry a compile before the reset stored, and no cache "
                       "diagnosis says so")
    return out


# -- §6 ------------------------------------------------------------------------------------
_RECORDINGS = re.compile(r"(\d+) recordings")


def cudagraph_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                       ) -> list[str]:
    """Per compiled function (its compiles' code object): what cudagraph_trees recorded, by
    its own three counts (the recordings of one partition, its trees for new int keys, the
    sizes it warned it observed). Two or more distinct sizes: a CUDA-graph diagnosis covers
    one of its compiles, and a re-recording diagnosis' count is the largest of torch's."""
    trees = reader.cudagraph_trees(run_id)
    recordings = reader.cudagraph_recordings(run_id)
    if not trees and not recordings:
        return []
    code = {c["compile_id"]: (c.get("filename"), c.get("co_name"))
            for c in reader.compiles(run_id) if c.get("co_name")}
    fn_of = {}
    for c in reader.compiles(run_id):
        fn_of[c["compile_id"]] = code.get(c["compile_id"]) or next(
            (v for k, v in code.items() if k.split("/")[0] == c["compile_id"].split("/")[0]),
            (None, None))
    by_fn: dict[Any, dict[str, Any]] = {}
    for t in trees:
        g = by_fn.setdefault(fn_of.get(t["compile_id"]), {"cids": set(), "keys": set(),
                                                           "observed": 0, "parts": {}})
        g["cids"].add(t["compile_id"])
        if t.get("key") is not None:
            g["keys"].add((t["compile_id"], t["key"]))
        g["observed"] = max(g["observed"], t.get("observed") or 0)
    for r in recordings:
        g = by_fn.setdefault(fn_of.get(r["compile_id"]), {"cids": set(), "keys": set(),
                                                           "observed": 0, "parts": {}})
        g["cids"].add(r["compile_id"])
        # one graph recorded again keeps its inputs' count and ranks: a forward and its
        # backward, both `partition_0`, are two graphs (set17/gpu hf_bert_problem_type)
        ranks = tuple(len(x) if isinstance(x, list) else -1 for x in r.get("sizes") or [])
        g["parts"].setdefault((r.get("function"), ranks), []).append(
            json.dumps([r.get("sizes"), r.get("symints")]))
    shown = [d for d in _all(diagnoses) if d["kind"] == "cudagraph"]
    out = []
    for fn, g in by_fn.items():
        sizes = max((len(set(s)) for s in g["parts"].values()), default=0)
        if max(sizes, len(g["keys"]), g["observed"]) < 2:
            continue
        torch_count = max(max((len(s) for s in g["parts"].values()), default=0),
                          len(g["keys"]), g["observed"])
        mine = [d for d in shown if g["cids"] & {d.get("compile_id"),
                                                  *(d.get("compile_ids") or [])}]
        if not mine:
            out.append(f"{fn[1] if fn else '?'}() was recorded for {torch_count} input sizes "
                       "by cudagraph_trees' own count and no CUDA-graph diagnosis says so")
            continue
        for d in mine:
            m = _RECORDINGS.search(d.get("reason") or "")
            if m and int(m.group(1)) != torch_count:
                out.append(f"cudagraph {d['reason'][:70]!r} counts {m.group(1)} recordings, "
                           f"cudagraph_trees counted {torch_count}")
    return out


# Dynamic shapes help a size or stride guard only; torch's own spellings of a guard.
SHAPE_FIXES = ("mark_dynamic", "dynamic=True", "torch.stack")
MANGLED = ("___check_type_id", "___check_obj_id", "._version", "' but found")


def recompile_reason_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                              ) -> list[str]:
    """A recompile (or its limit) whose guard is not a size/stride guard never suggests
    dynamic shapes (nor stacking, but for a list's length), and its reason never shows torch's mangled guard text alone
    (without compdiag's plain words: a head that is not just 'guard ... failed')."""
    out = []
    for d in _all(diagnoses):
        det = d.get("details") or {}
        if d.get("kind") != "recompile" or "category" not in det:
            continue
        reason = d.get("reason") or ""
        # a list whose length changes is one stacked tensor (then a size): stacking fits it
        allowed = ("torch.stack",) if det["category"] == "length" else ()
        # a size's range (a dynamic size bounded) is dynamic shapes' own: stating the
        # range (`mark_dynamic(min=, max=)`) or unbacking it is its fix
        # two sizes guarded equal (duck sizing: analyses/duck_sizes.py) is a size guard too
        sizes = all(".size()[" in str(det.get(k) or "") for k in ("guard", "before"))
        if det["category"] not in ("size", "stride", "size_range") and not sizes and any(
                w in (d.get("fix") or "") for w in SHAPE_FIXES if w not in allowed):
            out.append(f"a {det['category']} recompile suggests dynamic shapes: {reason}")
        mangled = [w for w in MANGLED if w in reason]
        if mangled and reason.startswith("guard "):
            out.append(f"a recompile shows torch's guard text {mangled[0]} alone: {reason}")
    return out


def unset_option_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                          ) -> list[str]:
    """A fix never tells the user to change an option the run did not set: a graph break
    Dynamo took shows that fullgraph=True (and error_on_graph_break) were off for it, so a
    graph break's fix never names them."""
    return [f"a graph break's fix names fullgraph, which the break shows was off: "
            f"{(d.get('fix') or '')[:80]}" for d in _all(diagnoses)
            if d.get("kind") == "graph_break"
            and re.search(r"fullgraph|error_on_graph_break", d.get("fix") or "", re.I)]


def glossary_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                      ) -> list[str]:
    """A headline in the user's words: no diagnosis' reason says a term of the glossary
    (compdiag/analyses/glossary.py: data-dependent, ...) only in torch's phrasing of it
    ("Data dependent operator", "unbacked symbols", "Dynamic shape operator")."""
    from compdiag.analyses.glossary import only_torch_words

    from compdiag.formats.guard_source import in_user_spelling

    out = [f"{d.get('kind')} {(d.get('reason') or '')[:80]!r} says {term!r} only in torch's "
           "words" for d in _all(diagnoses) for term in only_torch_words(d.get("reason") or "")]
    # a guard's source as the user's code spells it (`cfg`, not torch's `L['cfg']`), in the
    # headline, the explanation and the fix; torch's message keeps torch's spelling
    return out + [f"{d.get('kind')} spells a guard's source as torch does in its {key}: "
                  f"{(d.get(key) or '')[:80]!r}" for d in _all(diagnoses)
                  for key in ("reason", "explanation", "fix")
                  if in_user_spelling(d.get(key) or "") != (d.get(key) or "")]


_DIRECT_CAUSE = "The above exception was the direct cause of the following exception:"


def refused_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                     ) -> list[str]:
    """§1 evidence, torch's own words: where torch raised a graph break *from* another
    exception (its message's 'direct cause'), that cause names what torch refused (Dynamo's
    `NotImplementedError: DataPtrVariable()`: a data_ptr value). The headline of the break at
    that line names it: the tracker's words (DataPtr, as data_ptr or DataPtr). A cause that
    names no tracker is often Dynamo's own bookkeeping ("module_name called on base" under
    corpus gb_warnings' skipped-function break) and is not required of the headline; nor is
    the argument of an exception the program raised itself (OBSERVED). Read from the stored
    torch message, independently of ingest."""
    out = []
    for row in reader.graph_breaks(run_id):
        head = (row.get("torch_message") or "").split(_DIRECT_CAUSE, 1)
        if len(head) < 2:
            continue
        cause = next((ln.strip() for ln in reversed(head[0].splitlines()) if ln.strip()), "")
        m = re.match(r"^[\w.]*?(\w*(?:Error|Exception)):\s*(.+)$", cause)
        if not m or m.group(1).startswith(OBSERVED):
            continue
        tracker = re.match(r"([A-Z]\w*?)Variable\(", m.group(2))
        if not tracker:
            continue
        want = tracker.group(1).lower()
        mine = [d for d in _all(diagnoses) if d.get("kind") == "graph_break"
                and (d.get("user_frame") or {}).get("lineno") == row.get("lineno")]
        if mine and not any(want in (d.get("reason") or "").lower().replace("_", "")
                            for d in mine):
            out.append(f"the break at line {row.get('lineno')} was raised from {cause[:80]!r}, "
                       f"its headline {(mine[0].get('reason') or '')[:80]!r} does not name it")
    return out


# Dynamo's exceptions for one the program itself raised while it was traced (an
# AttributeError of `None.max()`, an IndexError): their message is the exception's arguments
# as trackers (`ObservedAttributeError: ConstantVariable(str: 'max')`), values of the
# program's, not a thing torch refused.
OBSERVED = "Observed"


def pointed_line_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                          ) -> list[str]:
    """§1 evidence order: where torch's own message names the op of a runtime failure ("Error
    in op: ns.op.overload"), the failure's diagnosis is at a user line of that op's graph node.
    (Not torch's "Stack trace: File ..." of an overwritten CUDA-graph output: that frame is
    where the output was made inside the compiled function; the user's problem is the later
    read, the corpus' cg_output_overwritten convention, which the H200 held to.) Read from the
    stored message and graph nodes."""
    out = []
    for f in reader.failures(run_id):
        text = f.get("torch_message") or f.get("message") or ""
        op = re.search(r"Error in op: (?:torch\.ops\.)?([\w.]+)",
                       f"{text}\n{f.get('traceback') or ''}")
        if op and f.get("stage") == "runtime":
            # torch named the op: the user lines of that op's graph nodes
            want = {n["lineno"] for n in reader.graph_nodes(run_id, f.get("compile_id"))
                    if (n.get("target") or "") == op.group(1) and n.get("lineno")
                    and is_user_file(n.get("filename"))}
        else:
            continue
        if not want:
            continue
        # the headline diagnosis of the failure (a consequence folded under it may restate
        # it where it surfaced: that is the raising line, rightly)
        mine = [d for d in diagnoses if d.get("kind") == "failure"
                and (d.get("torch_message") or "")[:200] in text]
        for d in mine:
            got = (d.get("user_frame") or {}).get("lineno")
            if got not in want:
                out.append(f"torch's message points at line {min(want)}, the failure is at {got}: "
                           f"{(d.get('reason') or '')[:80]!r}")
    return out


def made_at_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                     ) -> list[str]:
    """§1 torch's words kept: a failure whose stored torch_frames (torch's "Stack trace: File
    ..." of the tensor it is about) name a user line other than the failure diagnosis's own
    line carries `details.made_at` naming that line; torch said where the tensor was made, and
    the user fixes it there as often as where it was read. Read from the stored frames."""
    out = []
    for f in reader.failures(run_id):
        named = [fr for fr in f.get("torch_frames") or []
                 if is_user_file(fr.get("filename")) and fr.get("lineno")]
        if not named:
            continue
        want = named[-1]  # the innermost user frame torch named
        text = f.get("torch_message") or f.get("message") or ""
        for d in diagnoses:
            if d.get("kind") != "failure" or (d.get("torch_message") or "")[:200] not in text:
                continue
            uf = d.get("user_frame") or {}
            if (Path(uf.get("filename") or "").name, uf.get("lineno")) == (
                    Path(want["filename"]).name, want["lineno"]):
                continue  # the failure is at torch's line itself: nothing more to say
            made = (d.get("details") or {}).get("made_at") or {}
            if made.get("lineno") != want["lineno"]:
                out.append(f"torch says the tensor was made at line {want['lineno']}, the "
                           f"failure at {uf.get('lineno')} does not say so (made_at: "
                           f"{made.get('lineno')}): {(d.get('reason') or '')[:80]!r}")
    return out


# The sections of a Dynamo error where torch lists the user code it was tracing: "from user
# code:" at its end, and a backend compiler exception's (GB0219) developer context.
_TRACED_SECTIONS = re.compile(r"^(?:from user code:|\s+Traceback:)\s*$", re.M)
_FRAME = re.compile(r'^\s*File "(?P<file>[^"\n]+)", line (?P<line>\d+)', re.M)


def traced_line_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                         ) -> list[str]:
    """§1 evidence order, torch's words: a failure while Dynamo traced (stage `dynamo`) whose
    message lists the user code it was tracing ("from user code:", a backend exception's
    "Traceback:") is diagnosed at a user line torch's message names, never at one it does not
    (the caller's statement compilation_metrics may name). Read from the stored message,
    apart from ingest's parser."""
    out = []
    for f in reader.failures(run_id):
        text = f.get("torch_message") or ""
        at = _TRACED_SECTIONS.search(text)
        if f.get("stage") != "dynamo" or not at:
            continue
        traced = [m for m in _FRAME.finditer(text[at.end():]) if is_user_file(m.group("file"))]
        if not traced:
            continue
        named = {(Path(m.group("file")).name, int(m.group("line")))
                 for m in _FRAME.finditer(text) if is_user_file(m.group("file"))}
        for d in diagnoses:
            if d.get("kind") != "failure" or d.get("compile_id") != f.get("compile_id") or \
                    (d.get("torch_message") or "")[:200] not in text:
                continue
            uf = d.get("user_frame") or {}
            if (Path(uf.get("filename") or "").name, uf.get("lineno")) not in named:
                out.append(f"torch's message names line {traced[-1].group('line')} as the code "
                           f"it traced, the failure is at {uf.get('lineno')}, a line it does "
                           f"not name: {(d.get('reason') or '')[:80]!r}")
    return out


# What a fake-run failure's fix must not say where torch's kernel or the program's own handler
# is at fault: check the line in eager (it runs there, or eager catches what it raises), or
# shrink a graph with the minifier (the failure came before any graph). Advice to run the code
# in eager as a workaround ("decorate fn ... so it runs in eager") is not a check.
_EAGER_CHECK = re.compile(r"(?:check|see|confirm|whether)\b[^.;]*\bruns in eager|force_eager|"
                          r"bug in (?:the|your) code", re.I)
_MINIFY = re.compile(r"compdiag minify")


def _caught_in_eager(source: str | None, lineno: Any, exc_type: str) -> bool:
    """Whether the source has a `try` whose body holds the line and one of whose handlers names
    the exception's class or one of its builtin bases (or is bare): this module's own reading
    of the user's source, apart from compdiag's."""
    import ast
    import builtins

    cls = getattr(builtins, exc_type, None)
    names = {c.__name__ for c in cls.__mro__} if isinstance(cls, type) else {exc_type}
    try:
        tree = ast.parse(source or "")
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and node.body and isinstance(lineno, int) and \
                node.body[0].lineno <= lineno <= (node.body[-1].end_lineno or 0):
            for h in node.handlers:
                kinds = (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])
                if h.type is None or any(getattr(k, "id", getattr(k, "attr", None)) in names
                                         for k in kinds):
                    return True
    return False


def fake_run_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                      ) -> list[str]:
    """Issue 29 §1/§3, who is at fault when a fake-tensor run raised: a failure whose stored
    origin is torch's own kernel (`torch`), or whose traced exception the program's own
    try/except around the line catches in eager, is never told to check the line in eager nor
    offered `compdiag minify`; torch's kernel's headline names the op whose fake run failed, a
    custom op's fake implementation's headline says `fake`, a caught one's names the handler
    (`except`). Read from the failures' stored facts and the kept source."""
    out = []
    for f in reader.failures(run_id):
        mine = [d for d in _all(diagnoses) if d.get("kind") == "failure"
                and d.get("compile_id") == f.get("compile_id") and d.get("stage") == f.get("stage")]
        if not mine:
            continue
        exc = (f.get("origin_exc") or "").split(":", 1)[0] or f.get("exc_type") or ""
        caught = f.get("origin") in (None, "check") and f.get("stage") in ("dynamo", "aot") \
            and _caught_in_eager(reader.source_text(run_id, f.get("filename")), f.get("lineno"),
                                 exc)
        for d in mine:
            reason, fix = d.get("reason") or "", d.get("fix") or ""
            where = f"failure at line {f.get('lineno')} ({f.get('origin') or 'caught'})"
            if f.get("origin") == "torch" or caught:
                if _EAGER_CHECK.search(fix):
                    out.append(f"{where}: the fix says to check it in eager: {fix[:80]!r}")
                if _MINIFY.search(fix):
                    out.append(f"{where}: the fix offers compdiag minify: {fix[:80]!r}")
            if not any(d is top for top in diagnoses):
                continue  # a consequence folded under it restates it where it surfaced
            if f.get("origin") == "torch" and f.get("fake_op") and f["fake_op"] not in reason:
                out.append(f"{where}: the headline does not name {f['fake_op']}: {reason[:80]!r}")
            if f.get("origin") == "fake_kernel" and "fake" not in reason.lower():
                out.append(f"{where}: the headline does not blame the fake implementation: "
                           f"{reason[:80]!r}")
            if caught and "except" not in reason:
                out.append(f"{where}: the headline does not say the program's except catches "
                           f"it in eager: {reason[:80]!r}")
    return out


def _words_problems(diagnoses: list[dict[str, Any]], says: Any, what: str,
                    fields: tuple[str, ...] = ("reason", "fix")) -> list[str]:
    """Each headline or fix (or another of `fields`; consequences included) for which
    `says(text)` holds."""
    return [f"{d.get('kind')} at line {(d.get('user_frame') or {}).get('lineno')}: the "
            f"{field} {what}: {text[:100]!r}"
            for d in _all(diagnoses) for field in fields
            for text in [d.get(field) or ""] if says(text)]


def resume_name_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                         ) -> list[str]:
    """Issue 29 §1, the user's terms: no headline or fix names a resume function
    (`torch_dynamo_resume_in_fn_at_18`), a code object Dynamo makes after a graph break that
    the user cannot decorate, search for or configure; the function it resumes is the name.
    Caught on main: an internal error's fix said to decorate a resume function with
    `@torch.compiler.disable` (set5's subclass_getattr_flatten)."""
    return _words_problems(diagnoses, lambda t: "torch_dynamo_resume_in_" in t,
                           "names a resume function")


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]{4,}>")


def address_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                     ) -> list[str]:
    """The user's terms again: no headline, fix or explanation quotes a repr's memory address
    (`<function _enter_autocast at 0x7fb1329ce980>`), which differs in every process, so
    two runs of one program would read as two different diagnoses. Caught on main: an
    AOTAutograd cache bypass's headline (set4's autocast_cache_bypass, set8's jacfwd cases);
    a fullgraph failure's explanation quoting torch's `<function f at 0x..>` (probes27's
    fullgraph_disabled_helper)."""
    return _words_problems(diagnoses, _ADDRESS.search, "quotes a memory address",
                           ("reason", "fix", "explanation"))


def own_code_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                      ) -> list[str]:
    """Fail open: compdiag's own code is never where the program's graph breaks happen. A
    wrapper compdiag put on torch's runtime path that Dynamo compiled as a frame of the
    program added breaks of its own (sys._getframe in capture/backward_graphs.py, set11's
    gradscaler_step_breaks) before capture.backward_graphs.not_traced."""
    import compdiag

    own = str(Path(compdiag.__file__).resolve().parent)
    out = []
    for g in reader.graph_breaks(run_id):
        inner = (g.get("user_stack") or [{}])[-1] or {}
        for f in (g.get("filename"), (g.get("lib_frame") or {}).get("filename"),
                  inner.get("filename")):
            if f and str(Path(str(f)).resolve()).startswith(own + os.sep):
                out.append(f"a graph break in compdiag's own code ({f}): {g.get('gb_type')}")
                break
    return out


def foreign_file_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                          ) -> list[str]:
    """§1, this run's lines: a graph node whose statement Dynamo traced in this run is at the
    file and line Dynamo traced it at. Caught on main: a graph served from the FX graph or
    AOTAutograd cache kept the paths of the process that compiled it first, and a failure
    was shown in a draft copy's file the run never executed (probes32a r1_penalty_gan,
    ingest/cached_paths.py). A cached graph of another program with other code has no
    place here to move to (locate skips such files: analyses/context.py's `foreign`)."""
    out = []
    for c in reader.compiles(run_id):
        cid = c.get("compile_id")
        places: dict[str, set] = {}
        for n in reader.dynamo_nodes(run_id, cid):
            if n.get("filename") and n.get("line"):
                places.setdefault(n["line"].strip(), set()).add(n["filename"])
        for n in reader.every_graph_nodes(run_id, cid):
            at = places.get((n.get("line") or "").strip())
            if at and n.get("filename") not in at:
                out.append(f"compile {cid}'s node {n.get('node')} is at {n.get('filename')}, "
                           f"where Dynamo traced its statement at {sorted(at)[0]} (a cached "
                           "graph's stale path?)")
                break
    return out


# A compiler stage a failure may be blamed on, and the code its traceback then runs through.
_STAGE_CODE = {"aot": ("torch/_functorch/", "torch/_subclasses/",
                       "torch/fx/experimental/proxy_tensor.py"),
               "inductor_lowering": ("torch/_inductor/",),
               "inductor_codegen": ("torch/_inductor/",)}


def stage_owner_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                         ) -> list[str]:
    """Issue 29 §1, torch's words: a failure said to be AOTAutograd's or Inductor's has a
    frame of that stage's code in its traceback (or, for Inductor, torch's message names
    it). Caught on main: a custom backend's own assert (`backend='inner_compiler' raised`,
    PyTorch's test_compiled_autograd.py) read "Inductor failed while lowering", because
    "inductor" was in the test file's own path; elsewhere "AOTAutograd failed"."""
    rows = {f.get("compile_id"): f for f in reader.failures(run_id)}
    out = []
    for d in _all(diagnoses):
        code = _STAGE_CODE.get(d.get("stage") or "")
        f = rows.get(d.get("compile_id"))
        if d.get("kind") != "failure" or not code or f is None:
            continue
        frames = re.findall(r'File "(.+?)", line \d+', f.get("traceback") or "")
        if not frames or any(c in fr for fr in frames for c in code):
            continue
        words = f"{f.get('exc_type')} {f.get('message') or ''}"[:600]
        if d["stage"] != "aot" and re.search(r"inductor|compile_fx|Lowering", words, re.I):
            continue
        out.append(f"failure {d.get('compile_id')}: said to be the {d['stage']} stage, but "
                   f"no frame of its traceback is that stage's code (deepest: {frames[-1]})")
    return out


def principle_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                       ) -> list[str]:
    """§2 (from the facts) to §9 together, each line prefixed with its section."""
    return [f"§{n}: {p}" for n, check in ((2, consequence_fact_problems),
                                          (3, ending_problems), (4, accuracy_problems),
                                          (5, reset_problems), (6, cudagraph_problems),
                                          (7, recompile_reason_problems),
                                          (8, unset_option_problems), (9, glossary_problems),
                                          (1, refused_problems), (1, pointed_line_problems),
                                          (1, made_at_problems), (1, traced_line_problems),
                                          (3, break_end_problems), (3, fake_run_problems),
                                          (2, ending_rank_problems),
                                          (1, resume_name_problems),
                                          (1, address_problems), (1, stage_owner_problems),
                                          (0, own_code_problems),
                                          (1, foreign_file_problems))
            for p in check(reader, run_id, diagnoses)]


def store_property_problems(store: Path, diagnoses: list[dict[str, Any]]) -> list[str]:
    """Every principle the corpus tests hold a run to (tests/locate_check.py's §1 lines and
    folds, and principle_problems above), over the last run of STORE with explain's
    DIAGNOSES: what a benchmark (the holdout sets, the model zoo) asks of every store it
    keeps, so that a run nobody here wrote is held to the same properties. Every line starts
    with its section (`§1: ...`; locate_check's lines and folds are §1 and §2), so that a
    sweep can count the problems by principle."""
    from locate_check import (consequence_problems, def_line_problems, ended_node_problems,
                              library_line_problems)

    with Reader(Path(store)) as r:
        run_id = r.resolve_run(None)
        return [f"§1: {p}" for check in (def_line_problems, library_line_problems,
                                         ended_node_problems)
                for p in check(r, run_id, diagnoses)] + \
            principle_problems(r, run_id, diagnoses) + \
            [f"§2: {p}" for p in consequence_problems(r, run_id)]
