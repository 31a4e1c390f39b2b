"""Accuracy verdicts from the store: per compiled graph, for `compdiag check`, JUnit and views;
and, with `--require-cudagraphs`, a CUDA-graph verdict per graph (skipped fails the gate).

Exit codes (DESIGN.md): 0 every compiled output matches eager (and every graph ran under CUDA
graphs, when required), 1 a mismatch or a graph that CUDA graphs skipped, 2 the script itself
failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree as ET

from compdiag.analyses.check_causes import random_excuse
from compdiag.store.reader import Reader, compile_id_key

EXIT_OK, EXIT_MISMATCH, EXIT_SCRIPT_FAILED = 0, 1, 2


@dataclass
class GraphVerdict:
    compile_id: str | None
    ok: bool
    outputs: list[dict[str, Any]] = field(default_factory=list)
    # why its differences say nothing of the compiler (it draws its own random numbers)
    not_comparable: str | None = None

    @property
    def caveat(self) -> str | None:
        """An output within tolerance whose float64 comparison says the computation amplifies
        rounding (ill-conditioned), which explain reports: the gate passes, the words say so
        (probes39g zscore_onepass_price: check said "matches eager", explain a problem)."""
        if not self.ok:
            return None
        o = next((o for o in self.outputs if (o.get("detail") or {}).get("verdict")
                  == "ill_conditioned"), None)
        return None if o is None else (
            f"within tolerance, but ill-conditioned: {o['output']}: "
            f"{o['detail'].get('reason') or 'the computation amplifies float rounding'}")

    @property
    def message(self) -> str:
        if self.not_comparable:
            return self.not_comparable
        bad = [o for o in self.outputs if not o["ok"]]
        if not bad:
            return self.caveat or "all outputs match eager"
        o = bad[0]
        text = f"{o['output']}: {o['detail'].get('reason', 'mismatch')}"
        node = o["detail"].get("divergent_node") or {}
        if node.get("node"):
            frame = node.get("user_frame") or {}
            text += f"; first divergent node {node['node']} ({node['op']})"
            if isinstance(node.get("shows_at"), dict):
                text += f", fused into {node['shows_at'].get('node')}, where it shows"
            if frame.get("filename"):
                text += f" at {frame['filename']}:{frame['lineno']}"
        return text


@dataclass
class CudagraphVerdict:
    """One compiled graph under --require-cudagraphs: graphed or partitioned passes."""
    compile_id: str | None
    status: str  # graphed | partitioned | skipped
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.status != "skipped"

    @property
    def message(self) -> str:
        return (f"CUDA graphs skipped: {self.reason or 'no reason given'}" if not self.ok
                else f"CUDA graphs {self.status}")


@dataclass
class AccuracyReport:
    run_id: int
    exit_code: int | None
    status: str
    graphs: list[GraphVerdict]
    warnings: list[str]
    # None: not required; [] required and nothing ran under CUDA graphs (fails the gate)
    cudagraphs: list[CudagraphVerdict] | None = None
    # how a failed script ended: its exception's type and first line, at its user line
    ended: str | None = None

    @property
    def cudagraphs_failed(self) -> bool:
        return self.cudagraphs is not None and (not self.cudagraphs or
                                                 any(not c.ok for c in self.cudagraphs))

    @property
    def script_failed(self) -> bool:
        return self.status in ("killed",) or (self.exit_code not in (0, None))

    @property
    def verdict(self) -> int:
        if self.script_failed:
            return EXIT_SCRIPT_FAILED
        if self.cudagraphs_failed:
            return EXIT_MISMATCH
        return EXIT_OK if all(g.ok for g in self.graphs) else EXIT_MISMATCH


def cudagraph_verdicts(reader: Reader, run_id: int) -> list[CudagraphVerdict]:
    from compdiag.analyses.cudagraph_coverage import coverage

    cov = coverage(reader, run_id) or {"graphs": []}
    return [CudagraphVerdict(g["compile_id"], g["status"], g.get("reason"))
            for g in cov["graphs"]]


def report(reader: Reader, run_id: int, *, require_cudagraphs: bool = False
           ) -> AccuracyReport:
    run = reader.run(run_id)
    by_graph: dict[str | None, GraphVerdict] = {}
    for row in reader.accuracy(run_id):
        g = by_graph.setdefault(row["compile_id"], GraphVerdict(row["compile_id"], True))
        g.outputs.append(row)
        g.ok = g.ok and bool(row["ok"])
    for g in by_graph.values():
        drawn = None if g.ok else random_excuse(reader, run_id, g.compile_id,
                                                [o for o in g.outputs if not o["ok"]])
        if drawn is not None:
            # Inductor draws the graph's random numbers itself: no value downstream of them can
            # match eager's, so the gate does not fail on them (JUnit: skipped, with why)
            g.ok = True
            line = f" of line {drawn['lineno']}" if drawn.get("lineno") else ""
            g.not_comparable = (f"not comparable with eager: the graph draws its own random "
                                f"numbers{line} ({drawn.get('target')}); set torch._inductor."
                                "config.fallback_random = True to compare its values")
    graphs = sorted(by_graph.values(), key=lambda g: compile_id_key(g.compile_id))
    return AccuracyReport(run_id, run["exit_code"], run["status"], graphs,
                          reader.warnings(run_id),
                          cudagraph_verdicts(reader, run_id) if require_cudagraphs else None,
                          ended=_ended(reader, run_id))


def _ended(reader: Reader, run_id: int) -> str | None:
    """The exception that ended the script, in one line at its innermost user frame
    ("AssertionError at train.py:46: grads differ"); None when none was recorded."""
    from pathlib import Path

    from compdiag.analyses.context import exception_frames
    from compdiag.formats.first_nonblank import first_nonblank

    excs = reader.program_exceptions(run_id)
    if not excs:
        return None
    exc = excs[-1]
    first = first_nonblank(exc.get("message"))
    user, _ = exception_frames(exc)
    where = (f" at {Path(user['filename']).name}:{user['lineno']}"
             if user and user.get("filename") and user.get("lineno") else "")
    return f"{exc.get('exc_type')}{where}" + (f": {first[:200]}" if first else "")


def junit_xml(rep: AccuracyReport, name: str) -> str:
    """One testcase per compiled graph, readable by CI systems (JUnit XML)."""
    cases = ET.Element("testsuite", name=f"compdiag.accuracy.{name}")
    failures = errors = 0
    if rep.script_failed:
        errors += 1
        case = ET.SubElement(cases, "testcase", classname=f"compdiag.{name}", name="script")
        err = ET.SubElement(case, "error", message=f"the script exited with {rep.exit_code}")
        err.text = "\n".join(rep.warnings)
    for g in rep.graphs:
        case = ET.SubElement(cases, "testcase", classname=f"compdiag.{name}",
                             name=f"graph {g.compile_id}")
        if g.not_comparable:
            ET.SubElement(case, "skipped", message=g.message)
        elif not g.ok:
            failures += 1
            fail = ET.SubElement(case, "failure", message=g.message)
            fail.text = "\n".join(
                f"{o['output']}: ok={o['ok']} max_abs={o['max_abs']} max_rel={o['max_rel']} "
                f"{o['detail'].get('reason', '')}" for o in g.outputs)
    n_cg = 0
    if rep.cudagraphs is not None:
        verdicts = rep.cudagraphs or [CudagraphVerdict(None, "skipped",
                                                       "no graph ran under CUDA graphs")]
        for c in verdicts:
            n_cg += 1
            case = ET.SubElement(cases, "testcase", classname=f"compdiag.{name}.cudagraphs",
                                 name=f"cudagraphs graph {c.compile_id or '-'}")
            if not c.ok:
                failures += 1
                ET.SubElement(case, "failure", message=c.message).text = c.reason or ""
    cases.set("tests", str(len(rep.graphs) + n_cg + (1 if rep.script_failed else 0)))
    cases.set("failures", str(failures))
    cases.set("errors", str(errors))
    return ET.tostring(cases, encoding="unicode", xml_declaration=True)


# Rounding amplified this much (eager's error against float64 over the dtype's eps) is an
# ill-conditioned computation even within the tolerance.
ILL_CONDITIONED_AMPLIFICATION = 100.0


def what_was_compared(rows: list[dict[str, Any]]) -> str:
    """What a `--check-accuracy` run compared, in one sentence: the graphs, their outputs and
    gradients, the program's own inputs they ran on (inf/nan counted), the tolerance and the
    largest difference it saw with its amplification of float rounding. Said when the
    program's own comparison found a difference the check did not, so the user can tell
    which values the two compared differently."""
    if not rows:
        return ""
    details = [r["detail"] if isinstance(r.get("detail"), dict) else {} for r in rows]
    graphs = {r.get("compile_id") for r in rows}
    grads = sum(1 for d in details if d.get("backward"))
    parts = [f"{len(rows) - grads} output{'s' * (len(rows) - grads != 1)}"]
    if grads:
        parts.append(f"{grads} gradient{'s' * (grads != 1)} (of the program's own backward)")
    inputs = next((d["inputs"] for d in details if d.get("inputs")), None)
    text = (f"--check-accuracy compared {' and '.join(parts)} of {len(graphs)} compiled "
            f"graph{'s' * (len(graphs) != 1)}")
    if inputs:
        text += f" on the program's own inputs ({', '.join(map(str, inputs[:4]))}" + (
            ", ..." if len(inputs) > 4 else "") + ")"
    tols = sorted({d["tol"] for d in details if isinstance(d.get("tol"), (int, float))})
    if tols:
        text += f" at tolerance {', '.join(f'{t:g}' for t in tols)}"
    worst = max(rows, key=lambda r: float(r.get("max_abs") or 0.0))
    if worst.get("max_abs"):
        d = worst["detail"] if isinstance(worst.get("detail"), dict) else {}
        text += (f"; the largest difference was {worst['max_abs']:.3g} abs, "
                 f"{float(worst.get('max_rel') or 0):.3g} rel ({worst.get('output')})")
        amp = d.get("amplification")
        if d.get("verdict") == "tf32":  # measured: the rounding is TF32's, not float32's
            text += ", TF32's rounding there (measured with TF32 off)"
        elif isinstance(amp, (int, float)) and amp >= ILL_CONDITIONED_AMPLIFICATION:
            text += f", float rounding amplified ~{amp:g}x there: ill-conditioned"
        elif isinstance(amp, (int, float)):
            text += f", float rounding (amplified ~{amp:g}x)"
    else:
        text += "; compiled and eager were bitwise equal there"
    return text + "."
