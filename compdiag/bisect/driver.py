"""The bisect loop: ask the search for a plan, keep `jobs` probes of it running (the needed
one and speculative ones), cancel probes a new result makes useless, stop at the answer."""

from __future__ import annotations

import os
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from compdiag.bisect.runner import HOOK_DIR, Oracle, Runner
from compdiag.bisect.search import Evidence, Probe, Result, Search, load_backends

SCHEMA_VERSION = 1


@dataclass
class Step:
    n: int
    probe: Probe
    result: str            # good | bad | cancelled | skipped | inferred
    rc: int | None = None
    wall_s: float | None = None
    speculative: bool = False
    reason: str | None = None

    def doc(self) -> dict:
        p = self.probe
        config = None
        if p.config:
            config = {f"{name}.{fld}": value for name, fld, value in p.config}
        return {"n": self.n, "probe": p.label(), "backend": p.backend,
                "subsystem": p.subsystem, "max": p.max, "config": config,
                "result": self.result, "rc": self.rc,
                "wall_s": None if self.wall_s is None else round(self.wall_s, 2),
                "speculative": self.speculative, "reason": self.reason}


@dataclass
class Report:
    result: Result | None
    steps: list[Step]
    wall_s: float
    launched: int
    cancelled: int
    cmd: list[str]
    error: str | None = None
    baseline_tail: str = ""
    results: dict[Probe, bool] = field(default_factory=dict)
    warm_probes: int = 0
    warm_note: str = ""
    evidence: Evidence | None = None   # the failing run of the blamed backend
    cwd: Path | None = None  # where CMD ran: the replay lines run there, pasted anywhere

    def config_graphs(self) -> list[str]:
        """For a config culprit: the graphs it can reach (compile id and kind)."""
        r, ev = self.result, self.evidence
        if r is None or r.subsystem is None or not r.subsystem.is_config or ev is None:
            return []
        fld = r.subsystem.config_field
        out = []
        for g in ev.graphs:
            if fld == "fallback_random" and not g.get("random"):
                continue
            if fld == "emulate_precision_casts" and not any(
                    d.startswith(("float16", "bfloat16", "float64", "float8"))
                    for d in g.get("dtypes", [])):
                continue
            label = f"{g.get('cid')} {g.get('kind') or 'dynamo'}"
            if label not in out:
                out.append(label)
        return out

    def replay(self, probe: Probe | None) -> str | None:
        if probe is None:
            return None
        env = probe.env()
        # the PYTHONPATH the bisect ran the program with (runner.env), so a pasted replay
        # imports what the runs did (probes48b: timm from the user's PYTHONPATH was dropped)
        user = os.environ.get("PYTHONPATH")
        if probe.config:  # compdiag's hook applies the config change
            env["PYTHONPATH"] = os.pathsep.join([str(HOOK_DIR)] + ([user] if user else []))
        elif user:
            env["PYTHONPATH"] = user
        words = [f"{k}={shlex.quote(v)}" for k, v in env.items()]
        line = " ".join(["env", *words, *map(shlex.quote, self.cmd)])
        # (a relative script path ran in the bisect's folder: probes27, FileNotFoundError
        # when pasted from another)
        return f"cd {shlex.quote(str(self.cwd))} && {line}" if self.cwd else line

    def verified(self, probe: Probe | None, good: bool) -> bool | None:
        """Whether a replay's probe ran during the bisect (or is the failing run itself) and
        gave the result the replay claims."""
        if probe is None or self.result is None:
            return None
        r = self.result
        if probe not in self.results and r.count is not None and probe.max == r.count - 1:
            probe = Probe(r.backend)  # every application enabled: the failing run
        return self.results.get(probe) is good

    def document(self) -> dict:
        r = self.result
        doc: dict = {"schema_version": SCHEMA_VERSION,
                     "backend": r.backend if r else None,
                     "subsystem": r.subsystem.name if r and r.subsystem else None,
                     "application": r.application if r else None,
                     "debug_info": r.debug_info if r else None,
                     "steps": [s.doc() for s in self.steps],
                     "replay": self.replay(r.bad) if r else None}
        doc["replay_off"] = self.replay(r.good) if r else None
        # the passing half's exit status where it failed with another error than the run's:
        # then it does not pass, it only does not fail the run's way
        done = next((st for st in self.steps if r and st.probe == r.good
                     and st.result == "good"), None)
        doc["replay_off_status"] = done.rc if done is not None and done.rc not in (0, None) \
            else None
        doc["replay_verified"] = {"replay": self.verified(r.bad, False) if r else None,
                                  "replay_off": self.verified(r.good, True) if r else None}
        doc["found"] = r is not None
        doc["error"] = self.error
        if r is not None and r.subsystem is not None and r.subsystem.is_config:
            doc["config"] = {f"{r.subsystem.config_name}.{r.subsystem.config_field}":
                             r.subsystem.config_value}
        c = (r.culprit or {}) if r else {}
        doc["culprit"] = None if not c else {
            "compile_id": c.get("cid"), "graph": c.get("graph"), "target": c.get("target"),
            "source": c.get("src"), "applications": r.count if r else None}
        if r is not None and r.subsystem is not None and r.subsystem.is_config:
            doc["culprit"] = {"graphs": self.config_graphs()}
        doc["probes"] = {"launched": self.launched, "cancelled": self.cancelled,
                         "warm": self.warm_probes}
        doc["wall_s"] = round(self.wall_s, 2)
        return doc


Listener = Callable[[str, object], None]


def run_bisect(cmd: list[str], *, cwd: Path, oracle: Oracle | None = None, jobs: int = 2,
               warm: bool = True, timeout_s: float | None = None,
               listener: Listener | None = None) -> Report:
    """Bisect CMD; `listener(event, payload)` hears "start" (Probe), "step" (Step),
    "plan" (Plan) and "tick" (None)."""
    emit = listener or (lambda *_: None)
    search = Search(load_backends())
    results: dict[Probe, bool] = {}
    evidence: dict[Probe, Evidence] = {}
    steps: list[Step] = []
    started = time.monotonic()
    baseline_tail = ""
    with Runner(cmd, cwd, oracle or Oracle(), jobs, warm=warm, timeout_s=timeout_s) as runner:
        while True:
            plan = search.plan(results, evidence, limit=max(jobs + 2, 4))
            emit("plan", plan)
            if plan.done:
                break
            wanted = plan.probes
            for probe in list(runner.running):
                if probe not in wanted:
                    runner.kill(probe)
                    steps.append(Step(len(steps) + 1, probe, "cancelled",
                                      reason="a result made it unnecessary"))
                    emit("step", steps[-1])
            for i, probe in enumerate(wanted):
                if len(runner.running) >= jobs:
                    break
                if probe not in runner.running:
                    runner.start(probe, speculative=i > 0)
                    emit("start", probe)
            for fin in runner.wait_any(tick=lambda: emit("tick", None)):
                results[fin.probe] = fin.good
                evidence[fin.probe] = fin.evidence
                if fin.probe == Probe(search.order[-1]):
                    baseline_tail = fin.stderr_tail
                steps.append(Step(len(steps) + 1, fin.probe, "good" if fin.good else "bad",
                                  fin.rc, fin.wall_s, fin.speculative))
                emit("step", steps[-1])
        for probe in list(runner.running):
            runner.kill(probe)
            steps.append(Step(len(steps) + 1, probe, "cancelled",
                              reason="the answer was known without it"))
            emit("step", steps[-1])
        for note in plan.notes:
            steps.append(Step(len(steps) + 1, note.probe, note.verdict,
                              reason=note.reason + (" (passes)" if note.good else " (fails)")))
            emit("step", steps[-1])
        blamed = plan.result.backend if plan.result else None
        ev = evidence.get(Probe(blamed)) if blamed else None
        report = Report(plan.result, steps, time.monotonic() - started, runner.launched,
                        runner.cancelled, list(cmd), plan.error, baseline_tail, dict(results),
                        runner.warm_probes, runner.warm_note, ev, Path(cwd).resolve())
    return report
