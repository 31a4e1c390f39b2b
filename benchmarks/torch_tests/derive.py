"""What a right diagnosis must contain, derived from a test's own assertions.

Nothing here is written per test: each rule reads one shape of assertion PyTorch's tests use
and turns the text the test expects into an `Expectation`:

- `assertExpectedInlineMunged(Exc, fn, TEXT)`: the compile raised; TEXT is torch's message
  (first line, GB code, the user line under "from user code:").
- `assertExpectedInline(actual, TEXT)`: a graph-break log record ("Graph break in user code
  ... Graph Break Reason: ..."), a `counters["graph_break"]` key (the bare message), a
  formatted traceback, or the recompile-limit warning ("last reason: 0/0: GUARD").
- a guard-failure text the test looks for in a recompile warning or in `guard_fail_fn`'s
  reasons (`assert_single_log_contains`, `assertIn` over a list of guard texts, or a string
  a local helper passes on to one of those).
- `assertRaises(X)` / `assertRaisesRegex(X, TEXT)` with X one of torch._dynamo's exceptions.
- `assertExpectedInline(buffer, TEXT)` of structured-trace records (one JSON object a line,
  test_structured_trace.py): the compiles they name (frame/compile ids), which of them
  restarted (attempt >= 1), and the cache artifacts (`fx_graph_cache_miss`, ...) per kind.
- `assertEqual(<counter>.frame_count, N)`: the number of graphs the backend received.
- `assertEqual(counters[GROUP][NAME], N)` of a cache's hit / miss / bypass counter: the
  total over the test (derive_caches.py), and `assertRaisesRegex(BackendCompilerFailed,
  "BypassAOTAutogradCache: REASON")`: a bypass and its reason.

A test none of these rules reads is "not derivable", with the reason."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from collect import Case, class_node, method_node
from derive_caches import cache_counts, config_patches

GB_CODE = re.compile(r"/gb/gb(\d{4})\.html")
USER_FRAME = re.compile(r'File "([^"]+)", line (?:N|\d+), in (\S+)\n[ ]{4,}(\S.*)')
LIMIT_REASON = re.compile(r"last reason: \S+: (.*?)\s{2,}# (.*?)  # \S+ in \S+")
EXC_LINE = re.compile(r"^torch\._dynamo\.exc\.\w+: (.+)$", re.M)
# A text a test looks for in Dynamo's guard-failure reasons.
GUARD_TEXT = re.compile(r"(mismatch|expected type of|==|!=| is | not |___check|len\()")
# torch's exceptions whose raise means the compile failed (a test's assertRaises of them).
COMPILE_EXCEPTIONS = ("Unsupported", "TorchRuntimeError", "UncapturedHigherOrderOpError",
                      "FailOnRecompileLimitHit", "ResumePrologueTracingError",
                      "BackendCompilerFailed", "InternalTorchDynamoError", "UserError",
                      "RecompileError", "InvalidBackend", "SkipFrame")
FRAME_COUNT_ATTRS = ("frame_count",)


@dataclass
class Expectation:
    """One thing the test asserts about the compile, as a diagnosis must show it."""

    kind: str  # graph_break | failure | recompile | graphs | cache
    source: str  # the assertion it was read from (its line in the test file)
    gb_code: str | None = None  # "GB0025"
    first_line: str | None = None  # torch's message, first line (the GB type)
    user_line: str | None = None  # the source text of the line the message names
    user_linenos: list[int] = field(default_factory=list)  # where that text is in the test
    guards: list[str] = field(default_factory=list)  # guard-failure texts
    count: int | None = None  # graphs, or a counter's value
    counter: str | None = None  # "aot_autograd.autograd_cache_hit"
    at_least: bool = False  # the count is a lower bound (assertGreater)
    reason: str | None = None  # a cache bypass's reason
    compile_ids: list[str] = field(default_factory=list)  # trace: "0/1", "!0/3/0"
    restarted: list[str] = field(default_factory=list)  # trace: compiles with attempt >= 1
    records: dict[str, int] = field(default_factory=dict)  # trace: cache artifacts by name

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items()
                if not (v is None or v is False or v == [] or v == {})}


@dataclass
class Derived:
    expectations: list[Expectation]
    why_not: str | None  # set when nothing was derived

    @property
    def derivable(self) -> bool:
        return bool(self.expectations)


def _str(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _call_name(call: ast.Call) -> str:
    f = call.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return ""


def _exc_name(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


BYPASS = re.compile(r"Bypass\w*Cache: (.+)")


def regex_literal(pattern: str) -> str:
    """The longest literal run of a regex (`.*BypassAOTAutogradCache: Unsupported .*` ->
    "BypassAOTAutogradCache: Unsupported"): what a message matching it contains verbatim."""
    parts = re.split(r"(?<!\\)(?:\.[*+?]|\.|[*+?]|\[[^\]]*\]|[()|^$])", pattern)
    best = max((p.replace("\\", "") for p in parts), key=len, default="")
    return best.strip()


CACHE_RECORD = re.compile(r"^\w+?_cache_(hit|miss|bypass)$")


def parse_trace(text: str) -> dict[str, Any] | None:
    """Structured-trace records as test_structured_trace.py prints them (one JSON object a
    line, payload lines between): the compile ids they name, those restarted (attempt >= 1)
    and the cache artifacts by name; None when no line is a record of a compile."""
    ids: list[str] = []
    restarted: list[str] = []
    records: dict[str, int] = {}
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict) or "frame_id" not in rec:
            continue
        cid = f"{rec['frame_id']}/{rec.get('frame_compile_id')}"
        if rec.get("compiled_autograd_id") is not None:
            cid = f"!{rec['compiled_autograd_id']}/{cid}"
        if cid not in ids:
            ids.append(cid)
        if (rec.get("attempt") or 0) >= 1 and cid not in restarted:
            restarted.append(cid)
        name = (rec.get("artifact") or {}).get("name") if isinstance(rec.get("artifact"),
                                                                     dict) else None
        if name and CACHE_RECORD.match(name):
            records[name] = records.get(name, 0) + 1
    if not ids:
        return None
    return {"compile_ids": ids, "restarted": restarted, "records": records}


def parse_message(text: str, context_kind: str) -> dict[str, Any] | None:
    """torch's message as the test spells it: kind, first line, GB code, user line.

    CONTEXT_KIND is what the assertion says happened when the text alone does not (a raised
    exception is a failure; a `counters["graph_break"]` key a graph break)."""
    lines = text.splitlines()
    head = lines[0].strip() if lines else ""
    out: dict[str, Any] = {"kind": context_kind}
    if head.startswith("Graph break"):  # a graph_breaks log record
        out["kind"] = "graph_break"
        reason = text.split("Graph Break Reason: ", 1)[1] if "Graph Break Reason: " in text \
            else ""
        rlines = reason.splitlines()
        first = rlines[0].strip() if rlines else ""
        if first.endswith(":"):  # "... Graph break encountered:" / "attempting to trace X:"
            first = next((ln.strip() for ln in rlines[1:] if ln.strip()), "")
        out["first_line"] = first
    elif head.startswith("torch._dynamo hit config."):
        # The header is torch's log format; what a diagnosis must say is the limit it
        # names (config.recompile_limit), the guard that failed last and its line.
        out["kind"] = "recompile"
        out["first_line"] = head.split("config.", 1)[1].split()[0]
        m = LIMIT_REASON.search(text)
        if m:
            out["guards"] = [m.group(1).strip()]
            out["user_line"] = m.group(2).strip()
        return out
    elif head.startswith(("Traceback (most recent call last)", "<Internal traceback>")):
        m = EXC_LINE.search(text)
        if not m:
            return None
        out["kind"] = "failure"
        out["first_line"] = m.group(1).strip()
    elif head.startswith("This higher order operator doesn't work unless"):
        out["kind"] = "failure"
        out["first_line"] = next((ln.strip() for ln in lines[1:] if ln.strip()), "")
    elif GB_CODE.search(text):
        out["first_line"] = head
    elif context_kind == "failure" and (head or USER_FRAME.search(text)):
        # A raised exception's message in another shape (a backend's "backend='x'
        # raised:", an AssertionError's bare "from user code:"): its first line, if any,
        # and the user line.
        out["first_line"] = head or None
    else:
        return None
    m = GB_CODE.search(text)
    if m:
        out["gb_code"] = "GB" + m.group(1)
    frames = USER_FRAME.findall(text)
    if frames:
        out["user_line"] = frames[-1][2].strip()
    return out


def _string_lines(tree: ast.AST) -> set[int]:
    """Lines inside multi-line string literals (an expected message quotes the user line)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                node.end_lineno and node.end_lineno > node.lineno:
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def _linenos(source_lines: list[str], case: Case, text: str | None,
             in_strings: set[int]) -> list[int]:
    """The code lines of the test method (else of the file) whose text is TEXT."""
    if not text:
        return []
    want = text.strip()
    code = [i + 1 for i, ln in enumerate(source_lines)
            if ln.strip() == want and i + 1 not in in_strings]
    inside = [n for n in code if case.lineno <= n <= case.end_lineno]
    return inside or code


def _local_guard_helpers(fn: ast.AST) -> dict[str, int]:
    """Local helpers (`def cache_fail_test(cached, missed, expected_failure)`) that pass one
    of their parameters on as the text of `assert_single_log_contains` or `assertIn`:
    helper name -> that parameter's position."""
    helpers = {}
    for node in ast.walk(fn):
        if not isinstance(node, ast.FunctionDef) or node is fn:
            continue
        params = [a.arg for a in node.args.args]
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and _call_name(call) in (
                    "assert_single_log_contains", "assertIn") and call.args:
                arg = call.args[1] if _call_name(call) == "assert_single_log_contains" \
                    and len(call.args) > 1 else call.args[0]
                if isinstance(arg, ast.Name) and arg.id in params:
                    helpers[node.name] = params.index(arg.id)
    return helpers


def _is_recompile_test(src: str) -> bool:
    return any(w in src for w in ("guard_fail_fn", "recompiles", "assertLogs",
                                  "assert_single_log_contains"))


def derive(checkout: Path, case: Case) -> Derived:
    """The expectations of CASE, read from its method's assertions in file order."""
    source = (checkout / case.file).read_text()
    source_lines = source.splitlines()
    fn = method_node(checkout, case)
    fn_src = ast.get_source_segment(source, fn) or ""
    in_strings = _string_lines(fn)
    recompile_test = _is_recompile_test(fn_src)
    helpers = _local_guard_helpers(fn)
    exps: list[Expectation] = []
    seen_reasons: list[str] = []

    def add_message(text: str, context_kind: str, where: str) -> None:
        msg = parse_message(text, context_kind)
        if msg is None:
            seen_reasons.append(f"{where}: expected text is not a compile diagnosis "
                                f"({text.splitlines()[0][:60]!r})" if text.strip() else where)
            return
        exps.append(Expectation(kind=msg["kind"], source=where, gb_code=msg.get("gb_code"),
                                first_line=msg.get("first_line"),
                                user_line=msg.get("user_line"),
                                user_linenos=_linenos(source_lines, case, msg.get("user_line"),
                                                      in_strings),
                                guards=msg.get("guards", [])))

    def add_guards(texts: list[str], where: str) -> None:
        texts = [t for t in texts if GUARD_TEXT.search(t)]
        if texts:
            exps.append(Expectation(kind="recompile", source=where, guards=texts))

    branches = [(n.lineno, n.end_lineno or n.lineno) for n in ast.walk(fn)
                if isinstance(n, ast.If)]
    for node in sorted((n for n in ast.walk(fn) if isinstance(n, (ast.Call, ast.For))),
                       key=lambda n: (n.lineno, n.col_offset)):
        where = f"line {node.lineno}"
        if isinstance(node, ast.For):
            items = node.iter.elts if isinstance(node.iter, (ast.List, ast.Tuple)) else []
            texts = [s for s in map(_str, items) if s]
            if recompile_test and texts and len(texts) == len(items) and any(
                    isinstance(c, ast.Call) and _call_name(c) == "assertIn"
                    for c in ast.walk(node)):
                add_guards(texts, where + " (assertIn over guard texts)")
            continue
        name = _call_name(node)
        args = node.args
        if name == "assertExpectedInlineMunged" and len(args) >= 3 and _str(args[2]):
            add_message(_str(args[2]) or "", "failure", where + f" ({name}, "
                        f"{_exc_name(args[0])})")
        elif name == "assertExpectedInline" and len(args) >= 2 and _str(args[1]) and \
                parse_trace(_str(args[1]) or ""):
            if any(a <= node.lineno <= b for a, b in branches):
                seen_reasons.append(f"{where}: trace records expected under an `if`")
                continue
            exps.append(Expectation(kind="trace", source=where + " (trace records)",
                                    **parse_trace(_str(args[1]) or "")))
        elif name == "assertExpectedInline" and len(args) >= 2 and _str(args[1]):
            add_message(_str(args[1]) or "", "graph_break", where + f" ({name})")
        elif name == "assert_single_log_contains" and len(args) >= 2 and _str(args[1]):
            add_guards([_str(args[1]) or ""], where + f" ({name})")
        elif name in helpers and len(args) > helpers[name] and _str(args[helpers[name]]):
            add_guards([_str(args[helpers[name]]) or ""], where + f" ({name})")
        elif name == "startswith" and args and (_str(args[0]) or "").startswith(
                "torch._dynamo hit config."):
            exps.append(Expectation(kind="recompile", source=where + " (recompile-limit "
                                    "warning)", first_line=(_str(args[0]) or "").split(
                                        "config.", 1)[1].split()[0]))
        elif name in ("assertRaises", "assertRaisesRegex") and args and \
                _exc_name(args[0]) in COMPILE_EXCEPTIONS:
            text = _str(args[1]) if len(args) > 1 else None
            if text and name == "assertRaisesRegex":
                text = regex_literal(text)
            exps.append(Expectation(kind="failure", source=where + f" ({name}, "
                                    f"{_exc_name(args[0])})", first_line=text or
                                    _exc_name(args[0])))
            bypass = BYPASS.search(text or "")
            if bypass:
                exps.append(Expectation(kind="cache", source=where + " (bypass reason)",
                                        counter="aot_autograd.autograd_cache_bypass",
                                        count=1, at_least=True,
                                        reason=bypass.group(1).strip()))
        elif name == "assertEqual" and len(args) >= 2:
            _counts(node, where, exps)
    exps, why_graphs = _graphs_total(fn, exps)
    if why_graphs:
        seen_reasons.append(why_graphs)
    exps += _caches(checkout, case, fn, exps, seen_reasons)
    if not exps:
        return Derived([], "; ".join(seen_reasons) or _why_nothing(fn))
    return Derived(exps, None)


def _graphs_total(fn: ast.AST, exps: list[Expectation]) -> tuple[list[Expectation], str]:
    """The graphs a test compiles in all: per counter its last asserted frame_count in each
    phase between resets of the counter (_counter_resets), summed. Only where each counter
    is bound once in the test (a name bound again, `without = run(); ...; without = run()`,
    is another counter the sum would miss)."""
    graphs = [e for e in exps if e.kind == "graphs"]
    others = [e for e in exps if e.kind != "graphs"]
    if not graphs:
        return others, ""
    branches = [(n.lineno, n.end_lineno or n.lineno) for n in ast.walk(fn)
                if isinstance(n, ast.If)]
    if any(a <= int(m.group(1)) <= b for e in graphs
           for m in [re.match(r"line (\d+)", e.source)] if m for a, b in branches):
        # `if Ctx is CustomizedCtxManager: assertEqual(cnts.frame_count, 2)`: the count
        # holds for some parametrizations only
        return others, "graph counts asserted under an `if`"
    outside = _compiles_outside_counters(fn, {(e.counter or "").split(".")[0]
                                              for e in graphs})
    if outside:
        return others, f"graphs compiled outside the counters asserted ({outside})"
    bound: dict[str, int] = {}
    loops = [n for n in ast.walk(fn) if isinstance(n, (ast.For, ast.AsyncFor, ast.While))]
    for node in [*ast.walk(fn), *(n for loop in loops for n in ast.walk(loop))]:
        # an assignment in a loop binds its name once per iteration (a new counter after
        # each `torch._dynamo.reset()`): counted again for each loop around it
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for t in targets:
            if isinstance(t, ast.Name):
                bound[t.id] = bound.get(t.id, 0) + 1
    resets = _counter_resets(fn)
    last: dict[tuple[str, int], Expectation] = {}  # (counter, phase) -> its last assertion
    for e in graphs:
        at = re.match(r"line (\d+)", e.source)  # _counts' `where`
        line = int(at.group(1)) if at else 0
        phase = sum(1 for reset in resets.get(e.counter or "", []) if reset < line)
        last[(e.counter or "", phase)] = e
    rebound = sorted(n for n, _ in last if bound.get(n.split(".")[0], 0) > 1)
    if rebound:
        return others, f"graph counts of a counter bound more than once ({rebound[0]})"
    total = sum(e.count or 0 for e in last.values())
    return others + [Expectation(kind="graphs", source=", ".join(
        e.source for e in last.values()), count=total)], ""


def _compiles_outside_counters(fn: ast.AST, counters: set[str]) -> str | None:
    """The first compile of the test no asserted counter sees, as its source text: a
    `torch.compile`/`optimize` with a named backend ("eager", "inductor", none given), or
    compiled autograd turned on with a compiler that names no counter. show counts every
    graph of the run, the test only those its counters saw (test_hooks.py's
    `torch.compile(fn, backend="aot_eager")` beside a compiled-autograd counter)."""
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node)
        text = ast.unparse(node)
        if name in ("compile", "optimize") and ast.unparse(node.func) != "re.compile":
            backend = next((k.value for k in node.keywords if k.arg == "backend"), None)
            if backend is None and name == "optimize" and node.args:
                backend = node.args[0]
            if backend is None or isinstance(backend, ast.Constant):
                return text[:80]
        elif name in ("_enable", "enable") and "compiled_autograd" in text and not any(
                c and re.search(rf"\b{re.escape(c)}\b", text) for c in counters):
            return text[:80]
    return None


def _counter_resets(fn: ast.AST) -> dict[str, list[int]]:
    """counter -> the lines that set it back to zero (`cnts.clear()`, `cnt.frame_count = 0`):
    a counter asserted, reset and asserted again counts each phase's graphs apart, and the
    test compiled their sum (test_pgo.py: 2 graphs, `cnts.clear()`, then 1)."""
    out: dict[str, list[int]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "clear" and not node.args:
            out.setdefault(ast.unparse(node.func.value), []).append(node.lineno)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and \
                node.value.value == 0:
            for t in node.targets:
                if isinstance(t, ast.Attribute) and t.attr in FRAME_COUNT_ATTRS:
                    out.setdefault(ast.unparse(t.value), []).append(node.lineno)
    return out


def _caches(checkout: Path, case: Case, fn: ast.AST, exps: list[Expectation],
            why: list[str]) -> list[Expectation]:
    """One `cache` expectation per hit / miss / bypass counter whose total the test's
    assertions give (derive_caches.py); a bypass the test expects to raise merges into the
    bypass counter's expectation (its reason)."""
    if "counters[" not in ast.unparse(fn):
        return []
    cls = class_node(checkout, case)
    owner = None
    if case.owner:
        owner = class_node(checkout, Case(case.file, case.owner, case.name, 0, 0))
    counted, left_out = cache_counts(fn, config_patches(cls, fn, owner))
    why += left_out
    raised = {e.counter: e for e in exps if e.kind == "cache"}
    out = []
    for c in counted:
        exp = Expectation(kind="cache", source="lines " + ", ".join(map(str, c.lines)) +
                          " (counters)", counter=c.counter, count=c.count,
                          at_least=c.at_least)
        if c.counter in raised:  # the counter's total and the raise's reason, one check
            exp.reason = raised[c.counter].reason
            exps.remove(raised[c.counter])
        out.append(exp)
    return out


def _counts(call: ast.Call, where: str, exps: list[Expectation]) -> None:
    """`assertEqual(cnt.frame_count, N)` (a cache counter: _caches)."""
    a, b = call.args[0], call.args[1]
    if not (isinstance(b, ast.Constant) and isinstance(b.value, int)):
        a, b = b, a
    if not (isinstance(b, ast.Constant) and isinstance(b.value, int)) or \
            isinstance(b.value, bool):
        return
    if isinstance(a, ast.Attribute) and a.attr in FRAME_COUNT_ATTRS:
        exps.append(Expectation(kind="graphs", source=where + " (frame_count)",
                                count=b.value, counter=ast.unparse(a.value)))


def _why_nothing(fn: ast.AST) -> str:
    calls = sorted({_call_name(c) for c in ast.walk(fn) if isinstance(c, ast.Call)
                    and _call_name(c).startswith("assert")})
    return ("no assertion names a diagnosis (asserts: " + ", ".join(calls) + ")") if calls \
        else "no assertion"
