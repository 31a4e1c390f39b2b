"""Accuracy verdicts from the store: per compiled graph, for `compdiag check`, JUnit and views.

Exit codes (DESIGN.md): 0 every compiled output matches eager, 1 a mismatch, 2 the script
itself failed."""

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
class AccuracyReport:
    run_id: int
    exit_code: int | None
    status: str
    graphs: list[GraphVerdict]
    warnings: list[str]

    @property
    def script_failed(self) -> bool:
        return self.status in ("killed",) or (self.exit_code not in (0, None))

    @property
    def verdict(self) -> int:
        if self.script_failed:
            return EXIT_SCRIPT_FAILED
        return EXIT_OK if all(g.ok for g in self.graphs) else EXIT_MISMATCH


def report(reader: Reader, run_id: int) -> AccuracyReport:
    run = reader.run(run_id)
    by_graph: dict[str | None, GraphVerdict] = {}
    for row in reader.accuracy(run_id):
        g = by_graph.setdefault(row["compile_id"], GraphVerdict(row["compile_id"], True))
        g.outputs.append(row)
        g.ok = g.ok and bool(row["ok"])
    graphs = sorted(by_graph.values(), key=lambda g: compile_id_key(g.compile_id))
    return AccuracyReport(run_id, run["exit_code"], run["status"], graphs,
                          reader.warnings(run_id))


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
    cases.set("tests", str(len(rep.graphs) + (1 if rep.script_failed else 0)))
    cases.set("failures", str(failures))
    cases.set("errors", str(errors))
    return ET.tostring(cases, encoding="unicode", xml_declaration=True)
