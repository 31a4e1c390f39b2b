"""The search, with no process or torch in it: which probe to run next, what is already known.

`Search.plan(results)` replays CompilerBisector's decision procedure over the results known so
far. Where it needs an unknown result it guesses and goes on, so a plan lists the probe that is
needed now first and the probes that are likely to be needed next after it (run speculatively
on spare cores). Probes the evidence rules out are answered without running them:

- a BisectSubsystem that the failing run applied 0 times cannot change anything;
- a config change that cannot reach anything in the graphs Inductor compiled in the failing
  run (fallback_random without a random op, emulate_precision_casts with float32 only,
  layout_optimization never chosen, comprehensive_padding that padded no stride);
- find_max_bounds: the failing run of the backend already counted every application;
- a bisect probe that enables every application is the failing run itself;
- aot_eager_decomp_partition is the crossref backend without CrossRefFakeMode's checks: when
  crossref passes, it passes; when crossref fails and no graph has a custom op (the only ops
  crossref checks), it fails the same way.
"""

from __future__ import annotations

import ast
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

CROSSREF = "aot_eager_decomp_partition_crossref"
DECOMP = "aot_eager_decomp_partition"


@dataclass(frozen=True)
class Subsystem:
    name: str
    config_name: str | None = None   # set for a ConfigChange (a binary subsystem)
    config_field: str | None = None
    config_value: object = None

    @property
    def is_config(self) -> bool:
        return self.config_name is not None


# torch 2.13's table, used when torch's own cannot be read.
_FALLBACK_BACKENDS: dict[str, list[Subsystem]] = {
    "eager": [],
    "aot_eager": [],
    DECOMP: [Subsystem("aot_eager_decomp_partition_cse", DECOMP, "cse", False),
             Subsystem("decomposition")],
    CROSSREF: [],
    "inductor": [Subsystem("pre_grad_passes"), Subsystem("joint_graph_passes"),
                 Subsystem("post_grad_passes"),
                 Subsystem("inductor_fallback_random", "inductor", "fallback_random", True),
                 Subsystem("inductor_emulate_precision_casts", "inductor",
                           "emulate_precision_casts", True),
                 Subsystem("inductor_layout_optimization", "inductor", "layout_optimization",
                           False),
                 Subsystem("inductor_comprehensive_padding", "inductor",
                           "comprehensive_padding", False),
                 Subsystem("cudagraphs"), Subsystem("lowerings")],
}


def load_backends() -> dict[str, list[Subsystem]]:
    """CompilerBisector.BACKENDS of the installed torch, read from its source (importing it
    would import torch, seconds on a busy machine); torch 2.13's table if that fails."""
    try:
        spec = importlib.util.find_spec("torch")
        if spec is None or not spec.submodule_search_locations:
            raise LookupError("torch")
        src = Path(list(spec.submodule_search_locations)[0]) / "_inductor" / \
            "compiler_bisector.py"
        return parse_backends(src.read_text())
    except Exception:  # noqa: BLE001 - any surprise: the known table
        return {k: list(v) for k, v in _FALLBACK_BACKENDS.items()}


def parse_backends(source: str) -> dict[str, list[Subsystem]]:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        target = getattr(node, "target", None) or (getattr(node, "targets", None) or [None])[0]
        if isinstance(node, (ast.AnnAssign, ast.Assign)) and isinstance(target, ast.Name) \
                and target.id == "BACKENDS" and isinstance(node.value, ast.Dict):
            out: dict[str, list[Subsystem]] = {}
            for k, v in zip(node.value.keys, node.value.values):
                subs = []
                for call in v.elts:  # type: ignore[attr-defined]
                    kind = call.func.id
                    args = [ast.literal_eval(a) for a in call.args]
                    if kind == "ConfigChange":
                        subs.append(Subsystem(f"{args[0]}_{args[1]}", *args))
                    elif kind == "BisectSubsystem":
                        subs.append(Subsystem(args[0]))
                    else:
                        raise ValueError(kind)
                out[ast.literal_eval(k)] = subs  # type: ignore[arg-type]
            if not out:
                raise ValueError("empty BACKENDS")
            return out
    raise ValueError("no BACKENDS table")


@dataclass(frozen=True)
class Probe:
    """One run of the program: a backend, and optionally one subsystem limited to its first
    max+1 applications (max=-1: none; a config subsystem: its config change)."""
    backend: str
    subsystem: str | None = None
    max: int | None = None
    config: tuple[tuple[str, str, object], ...] | None = None

    def label(self) -> str:
        if self.subsystem is None:
            return self.backend
        if self.config:
            (_, fld, value), = self.config
            return f"{self.backend} · {fld}={value}"
        if self.max == -1:
            return f"{self.backend} · {self.subsystem} off"
        return f"{self.backend} · {self.subsystem} ≤{self.max}"

    def env(self) -> dict[str, str]:
        """The TORCH_BISECT_* protocol (plus our config change) for this probe."""
        env = {"TORCH_COMPILE_BACKEND": self.backend, "TORCH_BISECT_BACKEND": self.backend}
        if self.subsystem is not None:
            env["TORCH_BISECT_SUBSYSTEM"] = self.subsystem
            env["TORCH_BISECT_MAX"] = str(-1 if self.max is None else self.max)
        if self.config:
            change: dict[str, dict[str, object]] = {}
            for name, fld, value in self.config:
                change.setdefault(name, {})[fld] = value
            env["COMPDIAG_BISECT_CONFIG"] = json.dumps(change)
        return env


@dataclass
class Evidence:
    """What one probe's instrumentation logged (see hook/sitecustomize.py)."""
    apps: dict[tuple[str, str], list[dict]] = field(default_factory=dict)
    graphs: list[dict] = field(default_factory=list)
    compiles: int = 0
    scan_errors: int = 0
    layout_opt: list[bool] = field(default_factory=list)
    padded: bool = False
    hook_errors: list[str] = field(default_factory=list)

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> "Evidence":
        ev = cls()
        for line in lines:
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line cut by a kill
            t = rec.get("t")
            if t == "app":
                ev.apps.setdefault((rec["backend"], rec["subsystem"]), []).append(rec)
            elif t == "graph":
                ev.graphs.append(rec)
            elif t == "compile":
                ev.compiles += 1
            elif t == "scan_error":
                ev.scan_errors += 1
            elif t == "layout_opt":
                ev.layout_opt.append(bool(rec.get("value")))
            elif t == "padded":
                ev.padded = True
            elif t == "hook_error":
                ev.hook_errors.append(f"{rec.get('where')}: {rec.get('msg')}")
        return ev

    def count(self, backend: str, subsystem: str) -> int:
        return len(self.apps.get((backend, subsystem), []))

    def app(self, backend: str, subsystem: str, i: int) -> dict | None:
        for rec in self.apps.get((backend, subsystem), []):
            if rec.get("i") == i:
                return rec
        return None

    @property
    def scanned(self) -> bool:
        """Every graph handed to Inductor was scanned."""
        dynamo = sum(1 for g in self.graphs if g.get("where") == "dynamo")
        return not self.scan_errors and not self.hook_errors and dynamo >= self.compiles

    def dtypes(self) -> set[str]:
        return {d for g in self.graphs for d in g.get("dtypes", [])}

    def custom_ops(self) -> set[str]:
        return {c for g in self.graphs for c in g.get("custom", [])}


_LOW_PRECISION = ("float16", "bfloat16", "float64", "float8")


def ruled_out(sub: Subsystem, backend: str, ev: Evidence) -> str | None:
    """Why disabling `sub` cannot change the failing run `ev` of `backend`, or None."""
    if not sub.is_config:
        if ev.hook_errors:
            return None
        n = ev.count(backend, sub.name)
        return None if n else f"the failing run applied {sub.name} 0 times"
    if not ev.scanned or sub.config_name != "inductor":
        return None
    fld = sub.config_field
    if fld == "fallback_random" and sub.config_value is True:
        if not any(g.get("random") for g in ev.graphs):
            return "no random op in any graph Inductor compiled"
    elif fld == "emulate_precision_casts" and sub.config_value is True:
        low = sorted(d for d in ev.dtypes() if d.startswith(_LOW_PRECISION))
        if not low:
            return "no float16/bfloat16/float64/float8 tensor in any graph Inductor compiled"
    elif fld == "layout_optimization" and sub.config_value is False:
        if not any(ev.layout_opt) and len(ev.layout_opt) >= ev.compiles:
            return "Inductor chose no layout optimization for any graph"
        if ev.compiles == 0:
            return "Inductor compiled no graph"
    elif fld == "comprehensive_padding" and sub.config_value is False:
        if not ev.padded:
            return "comprehensive padding padded no stride"
    return None


@dataclass
class Result:
    backend: str
    subsystem: Subsystem | None = None
    application: int | None = None
    debug_info: str | None = None
    culprit: dict | None = None       # the application's log record (compile id, graph, ...)
    count: int | None = None          # applications in the failing run
    bad: Probe | None = None          # culprit on: reproduces the failure
    good: Probe | None = None         # culprit off: does not


@dataclass
class Note:
    probe: Probe
    verdict: str                      # "skipped" | "inferred"
    good: bool
    reason: str


@dataclass
class Plan:
    result: Result | None             # set when the search is over
    done: bool                        # True also when the answer is "no issue found"
    probes: list[Probe]               # needed now first, then speculative ones
    notes: list[Note]                 # probes answered without running them
    remaining: int                    # estimate of probes still to run
    error: str | None = None


class _Need(Exception):
    pass


class Search:
    def __init__(self, backends: dict[str, list[Subsystem]]) -> None:
        self.backends = backends
        self.order = list(backends)

    def _sub(self, backend: str, name: str) -> Subsystem:
        return next(s for s in self.backends[backend] if s.name == name)

    def test_disable(self, backend: str, sub: Subsystem) -> Probe:
        if sub.is_config:
            return Probe(backend, sub.name, -1,
                         ((sub.config_name, sub.config_field, sub.config_value),))
        return Probe(backend, sub.name, -1)

    def plan(self, results: dict[Probe, bool], evidence: dict[Probe, Evidence],
             limit: int = 4, *, estimate: bool = True) -> Plan:
        """results: probe -> passed (True = good)."""
        wanted: list[Probe] = []
        notes: list[Note] = []
        guessing = [False]

        def evidence_for(backend: str) -> Evidence | None:
            ev = evidence.get(Probe(backend))
            if ev is None and backend == DECOMP:
                ev = evidence.get(Probe(CROSSREF))
            return ev

        def need(p: Probe, guess: bool) -> bool:
            if p not in wanted:
                wanted.append(p)
            guessing[0] = True
            if len(wanted) >= limit:
                raise _Need
            return guess

        def ask(p: Probe, guess: bool) -> bool:
            if p in results:
                return results[p]
            if p.backend == DECOMP and p.subsystem is None and CROSSREF in self.backends:
                if Probe(CROSSREF) in results:
                    if results[Probe(CROSSREF)]:
                        notes.append(Note(p, "inferred", True,
                                          "the crossref backend passed, and it is this "
                                          "backend plus checks"))
                        return True
                    ev = evidence.get(Probe(CROSSREF))
                    if ev is not None and ev.scanned and ev.graphs and not ev.custom_ops():
                        notes.append(Note(p, "inferred", False,
                                          "the crossref backend failed, and no graph has a "
                                          "custom op for its checks to differ on"))
                        return False
                else:
                    # run crossref first: its result usually answers this one too
                    need(Probe(CROSSREF), True)
                    return guess
            return need(p, guess)

        try:
            result = self._procedure(ask, evidence_for, notes)
        except _Need:
            result = None
        except _Inconsistent as exc:
            return Plan(None, True, [], notes, 0, error=str(exc))
        if guessing[0]:
            # The failing run of the last backend (Inductor) is needed in most searches and
            # its log rules out most probes: start it right after the first probe.
            first_bad = Probe(self.order[-1])
            if first_bad in wanted[1:]:
                wanted.remove(first_bad)
                wanted.insert(1, first_bad)
            remaining = len(self.plan(results, evidence, limit=10_000, estimate=False).probes) \
                if estimate else len(wanted)
            return Plan(None, False, wanted, [], remaining)
        return Plan(result, True, [], notes, 0)

    def _procedure(self, ask: Callable[[Probe, bool], bool],
                   evidence_for: Callable[[str], Evidence | None],
                   notes: list[Note]) -> Result | None:
        last = self.order[-1]
        for backend in self.order:
            if ask(Probe(backend), backend != last):
                continue
            subs = self.backends[backend]
            ev = evidence_for(backend)
            if ev is None and subs:
                raise _Need  # no speculation past a failing backend before its log is read
            open_subs = []
            for sub in subs:
                why = ruled_out(sub, backend, ev) if ev is not None else None
                open_subs.append((sub, why))
            candidates = [s for s, why in open_subs if why is None]
            for sub, why in open_subs:
                probe = self.test_disable(backend, sub)
                if why is not None:
                    notes.append(Note(probe, "skipped", False, why))
                    continue
                if not ask(probe, sub is candidates[-1]):
                    continue
                if sub.is_config:
                    return Result(backend, sub, None, sub.name,
                                  bad=Probe(backend), good=probe)
                return self._bisect(backend, sub, ask, evidence_for, probe, notes)
            return Result(backend, bad=Probe(backend),
                          good=Probe(self.order[self.order.index(backend) - 1])
                          if backend != self.order[0] else None)
        return None

    def _bisect(self, backend, sub, ask, evidence_for, off_probe, notes) -> Result:
        ev = evidence_for(backend)
        if ev is None:
            raise _Need
        n = ev.count(backend, sub.name)
        if n <= 0:
            raise _Inconsistent(f"disabling {sub.name} fixed the failure, but the failing run "
                                f"applied it 0 times (is the program deterministic?)")
        low, high = 0, n - 1
        while True:
            mid = (low + high) // 2
            probe = Probe(backend, sub.name, mid)
            if mid >= n - 1:
                good = False  # every application enabled: the failing run itself
                notes.append(Note(probe, "inferred", False,
                                  f"enables all {n} applications: the failing run itself"))
            else:
                good = ask(probe, False)
            if good:
                low = mid + 1
            else:
                high = mid
            if low >= high:
                break
        if low > high:
            raise _Inconsistent(f"the bisection of {sub.name} ended on an empty range")
        rec = ev.app(backend, sub.name, low) if ev is not None else None
        return Result(backend, sub, low, rec.get("info") if rec else None, culprit=rec,
                      count=n, bad=Probe(backend, sub.name, low),
                      good=Probe(backend, sub.name, low - 1))


class _Inconsistent(Exception):
    pass
