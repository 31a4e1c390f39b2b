"""The cache counters a test asserts, read in the order the test runs them.

PyTorch's cache tests (test_aot_autograd_cache.py, test_codecache.py) assert running totals:
`assertEqual(counters["aot_autograd"]["autograd_cache_hit"], 1)` after a first compile, `... 2`
after a second, with `counters.clear()` between phases now and then. What a store of the whole
test must hold is, per counter, the sum over the phases (split at `counters.clear()`) of the
last value asserted in each. This module walks the test's statements in order to get it:

- a `with` block runs its body; an `if` on a config flag (`if functorch_config.
  bundled_autograd_cache:`) runs the branch the test's own decorators (`@config.patch(...)` on
  the method or its class) or else the installed torch's default select; any other `if`, and
  any loop, makes the counters asserted inside it unknown (the value depends on the run);
- a call of a local helper (`def run_and_check(miss, hit, bypass)`) runs the helper's body
  with its parameters bound to the call's constants;
- `assertGreater(counter, N)` says "more than N".

A counter whose total cannot be read this way is left out, with the reason; the caller counts
a test with no readable counter as not derivable."""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass
from typing import Any

RESULTS = ("hit", "miss", "bypass")
# Counter keys that look like a result but count something narrower or else.
NOT_RESULTS = ("guard_miss", "lookup", "saved")
CONFIG_MODULES = {"functorch_config": "torch._functorch.config",
                  "inductor_config": "torch._inductor.config",
                  "dynamo_config": "torch._dynamo.config"}


@dataclass
class Counted:
    """One counter's total over the test."""

    counter: str  # "aot_autograd.autograd_cache_hit"
    count: int
    at_least: bool  # an assertGreater: the total is at least COUNT
    lines: list[int]


def result_of(key: str) -> str | None:
    """hit / miss / bypass for a counter key of one of those, else None."""
    if any(n in key for n in NOT_RESULTS):
        return None
    return next((r for r in RESULTS if key.endswith("_cache_" + r)), None)


def _patches(decorators: list[ast.expr]) -> dict[tuple[str, str], Any]:
    """(config alias, name) -> value of each `ALIAS.patch(...)` decorator."""
    out: dict[tuple[str, str], Any] = {}
    for d in decorators:
        if not (isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and
                d.func.attr == "patch"):
            continue
        alias = ast.unparse(d.func.value).split(".")[-1]
        alias = {"config": "inductor_config"}.get(alias, alias)
        try:
            if d.args and isinstance(d.args[0], ast.Dict):
                for k, v in zip(d.args[0].keys, d.args[0].values):
                    out[(alias, ast.literal_eval(k))] = ast.literal_eval(v)
            elif len(d.args) == 2:
                out[(alias, ast.literal_eval(d.args[0]))] = ast.literal_eval(d.args[1])
            for kw in d.keywords:
                if kw.arg:
                    out[(alias, kw.arg)] = ast.literal_eval(kw.value)
        except (ValueError, TypeError, SyntaxError):
            continue
    return out


def config_patches(cls: ast.ClassDef, fn: ast.AST, owner: ast.ClassDef | None
                   ) -> dict[tuple[str, str], Any]:
    """The configs a test runs under: its defining class's, its running class's, then its
    own decorators' (the innermost patch wins)."""
    out: dict[tuple[str, str], Any] = {}
    for node in (owner, cls, fn):
        if node is not None:
            out.update(_patches(list(getattr(node, "decorator_list", []))))
    return out


def _default(alias: str, name: str) -> Any:
    module = CONFIG_MODULES.get(alias)
    if not module:
        raise LookupError(alias)
    return getattr(importlib.import_module(module), name)


def _flag(test: ast.expr, patches: dict[tuple[str, str], Any]) -> bool | None:
    """The value of an `if`'s test that reads one config flag (maybe negated), else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _flag(test.operand, patches)
        return None if inner is None else not inner
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name):
        key = (test.value.id, test.attr)
        if key in patches:
            return bool(patches[key])
        try:
            return bool(_default(*key))
        except (LookupError, AttributeError, ImportError):
            return None
    return None


def _counter_key(node: ast.expr) -> str | None:
    """"group.key" of `counters["group"]["key"]`."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript) and \
            isinstance(node.value.value, ast.Name) and node.value.value.id == "counters":
        try:
            group, key = ast.literal_eval(node.value.slice), ast.literal_eval(node.slice)
        except ValueError:
            return None
        if isinstance(group, str) and isinstance(key, str):
            return f"{group}.{key}"
    return None


def _value(node: ast.expr, env: dict[str, Any]) -> int | None:
    if isinstance(node, ast.Name) and node.id in env:
        node = env[node.id]
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and \
            not isinstance(node.value, bool):
        return node.value
    return None


def _is_clear(call: ast.Call) -> bool:
    f = call.func
    return isinstance(f, ast.Attribute) and f.attr == "clear" and \
        isinstance(f.value, ast.Name) and f.value.id == "counters"


class _Walk:
    def __init__(self, fn: ast.AST, patches: dict[tuple[str, str], Any]) -> None:
        self.patches = patches
        self.helpers = {n.name: n for n in ast.walk(fn)
                        if isinstance(n, ast.FunctionDef) and n is not fn}
        self.phases: list[dict[str, tuple[int, bool, int]]] = [{}]
        self.unknown: dict[str, str] = {}  # counter -> why its total is not known
        self.depth = 0

    def block(self, stmts: list[ast.stmt], env: dict[str, Any], why: str | None) -> None:
        for st in stmts:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue  # a helper runs where it is called
            if isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
                self.block(st.body + st.orelse, env, why or f"in a loop (line {st.lineno})")
            elif isinstance(st, ast.If):
                flag = None if why else _flag(st.test, self.patches)
                if flag is None:
                    self.block(st.body + st.orelse, env, why or
                               f"under an `if` read at run time (line {st.lineno})")
                else:
                    self.block(st.body if flag else st.orelse, env, why)
            elif isinstance(st, (ast.With, ast.AsyncWith)):
                self.calls(st.items, env, why)
                self.block(st.body, env, why)
            elif isinstance(st, ast.Try):
                self.block(st.body + st.orelse + st.finalbody, env, why)
            else:
                self.calls([st], env, why)

    def calls(self, nodes: list[Any], env: dict[str, Any], why: str | None) -> None:
        found = [c for n in nodes for c in ast.walk(n) if isinstance(c, ast.Call)]
        for call in sorted(found, key=lambda c: (c.lineno, c.col_offset)):
            name = call.func.attr if isinstance(call.func, ast.Attribute) else \
                call.func.id if isinstance(call.func, ast.Name) else ""
            if _is_clear(call):
                if why:
                    self.unknown.setdefault("*", f"counters.clear() {why}")
                else:
                    self.phases.append({})
            elif name in ("assertEqual", "assertGreater", "assertGreaterEqual") and \
                    len(call.args) >= 2:
                self.assertion(call, name, env, why)
            elif name in self.helpers and self.depth < 3:
                helper = self.helpers[name]
                params = [a.arg for a in helper.args.args]
                bound = dict(zip(params, call.args))
                bound.update({k.arg: k.value for k in call.keywords if k.arg})
                self.depth += 1
                self.block(helper.body, {**env, **bound}, why)
                self.depth -= 1

    def assertion(self, call: ast.Call, name: str, env: dict[str, Any],
                  why: str | None) -> None:
        a, b = call.args[0], call.args[1]
        key = _counter_key(a)
        if key is None and name == "assertEqual":
            a, b = b, a
            key = _counter_key(a)
        if key is None or result_of(key.split(".", 1)[1]) is None:
            return
        value = _value(b, env)
        if why or value is None:
            self.unknown.setdefault(key, why or f"asserted against a value read at run time "
                                                f"(line {call.lineno})")
            return
        at_least = name != "assertEqual"
        if name == "assertGreater":
            value += 1
        self.phases[-1][key] = (value, at_least, call.lineno)


def cache_counts(fn: ast.AST, patches: dict[tuple[str, str], Any]
                 ) -> tuple[list[Counted], list[str]]:
    """The counters FN asserts with their totals over the test, and why others are left out."""
    walk = _Walk(fn, patches)
    walk.block(list(getattr(fn, "body", [])), {}, None)
    if "*" in walk.unknown:
        return [], [walk.unknown["*"]]
    phases = [p for p in walk.phases if p]
    keys = sorted({k for p in phases for k in p} | set(walk.unknown))
    out, why = [], []
    for key in keys:
        if key in walk.unknown:
            why.append(f"{key}: {walk.unknown[key]}")
            continue
        missing = [i for i, p in enumerate(phases) if key not in p]
        if missing:
            why.append(f"{key}: not asserted between two counters.clear()")
            continue
        out.append(Counted(key, sum(p[key][0] for p in phases),
                           any(p[key][1] for p in phases), [p[key][2] for p in phases]))
    return out, why
