"""Accuracy verdicts from the store: per compiled graph, for `compdiag check`, JUnit and views;
and, with `--require-cudagraphs`, a CUDA-graph verdict per graph (skipped fails the gate).

Exit codes (DESIGN.md): 0 every compiled output matches eager (and every graph ran under CUDA
graphs, when required), 1 a mismatch or a graph that CUDA graphs skipped, 2 the script itself
failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree as ET

from compdiag.store.reader import Reader, compile_id_key

EXIT_OK, EXIT_MISMATCH, EXIT_SCRIPT_FAILED = 0, 1, 2


@dataclass
class GraphVerdict:
    compile_id: str | None
    ok: bool
    outputs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def message(self) -> str:
        bad = [o for o in self.outputs if not o["ok"]]
        if not bad:
            return "all outputs match eager"
        o = bad[0]
        text = f"{o['output']}: {o['detail'].get('reason', 'mismatch')}"
        node = o["detail"].get("divergent_node") or {}
        if node.get("node"):
            frame = node.get("user_frame") or {}
            text += f"; first divergent node {node['node']} ({node['op']})"
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
    graphs = sorted(by_graph.values(), key=lambda g: compile_id_key(g.compile_id))
    return AccuracyReport(run_id, run["exit_code"], run["status"], graphs,
                          reader.warnings(run_id),
                          cudagraph_verdicts(reader, run_id) if require_cudagraphs else None)


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
        if not g.ok:
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
