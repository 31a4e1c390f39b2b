"""A diagnosis kind is one module (issue 35): its KindSpec is all ranking, explain's text and
JSON, and the TUI need; kinds do not import each other; one rule matcher; the docs' kinds
list and store version are the code's. Fast: no compile (the stores are hand-built)."""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import io
import json
import re
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from compdiag.analyses.diagnosis import Diagnosis, UserFrame
from compdiag.analyses.explain import explain, rank
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.registry import kind_spec, kind_specs, plugin_manager
from compdiag.analyses.rules import Words, every, first, found, one_of
from compdiag.store.reader import Reader

ROOT = Path(__file__).resolve().parents[1]
KINDS_DIR = ROOT / "compdiag" / "analyses" / "diagnoses"

# A whole kind, as a newcomer writes it: one file. It diagnoses the run's first compile,
# under a cost class of its own that outranks everything built in.
THROWAWAY_KIND = '''
from dataclasses import dataclass

from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.locate import locate
from compdiag.analyses.ranking import Cost

KIND = "toy"


@dataclass(frozen=True)
class ToyDetails(Details):
    compiles: int


SPEC = KindSpec(KIND, title="toy finding", words=("toy finding", "toy findings"),
                style="bold green", tie=5, costs={"toy": Cost(5000)}, details=(ToyDetails,))


@hookimpl
def compdiag_kinds():
    return [SPEC]


@hookimpl
def compdiag_diagnose(ctx):
    cid = next(iter(ctx.compiles), None)
    return [Diagnosis(KIND, stage=None, compile_id=cid, reason="a toy reason",
                      user_frame=locate(ctx, cid), explanation="toy explanation",
                      fix="toy fix", score=SPEC.score("toy"),
                      details=ToyDetails(compiles=len(ctx.compiles)))]
'''


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from compdiag_tui.demo_store import USER_SOURCE, build_demo_store

    root = tmp_path_factory.mktemp("kinds")
    (root / "model.py").write_text(USER_SOURCE)
    return build_demo_store(root / "demo.db", compiles=6, runs=1, cwd=str(root))


@pytest.fixture
def toy_kind(tmp_path: Path):
    """The throw-away kind's module, registered the way a plugin's entry point is."""
    path = tmp_path / "toy_kind.py"
    path.write_text(THROWAWAY_KIND)
    spec = importlib.util.spec_from_file_location("toy_kind", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    plugin_manager().register(module)                # the one line
    try:
        yield module
    finally:
        plugin_manager().unregister(module)


def _latest_run(store: Path) -> int:
    with Reader(store) as r:
        return r.resolve_run(None)


def test_a_throwaway_kind_is_ranked_and_rendered_in_text_json_and_the_tui(
        demo: Path, toy_kind: ModuleType) -> None:
    """One module and one registry line: no table elsewhere names the kind, yet ranking, the
    text view, the JSON document and the TUI's diagnoses panel all show it with its spec."""
    from rich.console import Console

    from compdiag.views.explain import explain_document, print_explain

    run_id = _latest_run(demo)
    assert kind_spec("toy") is toy_kind.SPEC
    with Reader(demo) as r:
        ranked = explain(r, run_id)
        doc = explain_document(r, run_id)
    assert ranked[0].kind == "toy" and len(ranked) > 1         # above every built-in kind
    # JSON: the document as `explain --json` prints it.
    first_json = json.loads(json.dumps(doc))["diagnoses"][0]
    assert first_json["kind"] == "toy" and first_json["details"]["compiles"] == 6
    # Text: its title on the panel, its words in the header.
    out = io.StringIO()
    print_explain(doc, Console(file=out, width=120, force_terminal=False), limit=3)
    text = out.getvalue()
    assert "#1 toy finding" in text and "1 toy finding" in text.splitlines()[1]
    # The TUI: the panel lists it first, in its spec's colour.
    rows = asyncio.run(_panel_rows(demo, run_id))
    assert rows[0].plain.lstrip().startswith("toy")
    assert any(str(span.style) == "bold green" for span in rows[0].spans)


async def _panel_rows(store: Path, run_id: int) -> list:
    """Drive the TUI headless (as tests/test_tui.py does) with explain run in this process,
    where the throw-away kind is registered, and return the panel's rendered rows."""
    import compdiag_tui.diagnoses as diag
    from compdiag_tui import CompdiagApp
    from compdiag_tui.widgets import DiagnosesPanel
    from compdiag_tui.widgets._diagnoses_panel import diagnosis_label

    def in_process(path, run, **kwargs):
        with Reader(path) as r:
            return diag.load_diagnoses(r, run)

    real = diag.load_diagnoses_isolated
    diag.load_diagnoses_isolated = in_process
    try:
        app = CompdiagApp(store)
        async with app.run_test(size=(130, 40)) as pilot:
            loop = asyncio.get_running_loop()
            end = loop.time() + 20
            panel = None
            while loop.time() < end:
                found_panels = [p for p in app.screen.query(DiagnosesPanel)]
                if found_panels and found_panels[0].diagnoses:
                    panel = found_panels[0]
                    break
                await pilot.pause(0.05)
            assert panel is not None, "the diagnoses panel never filled"
            return [diagnosis_label(d) for d in panel.diagnoses]
    finally:
        diag.load_diagnoses_isolated = real


class _BrokenKind:
    """A kind whose every hook raises, as a plugin with a bug does."""
    KIND = "broken"

    @staticmethod
    @hookimpl
    def compdiag_diagnose(ctx):
        raise KeyError("no such column")

    @staticmethod
    @hookimpl
    def compdiag_limiter(diagnosis, timings):
        raise ZeroDivisionError("division by zero")


def test_a_kind_that_raises_is_said_and_the_others_stand(demo: Path) -> None:
    """explain fails open per kind: a raising kind costs its own diagnoses, never the run's
    (a traceback, or "no problems found"), and the text and JSON say which is missing."""
    from rich.console import Console

    from compdiag.analyses.perf import limiters
    from compdiag.views.explain import explain_document, print_explain

    run_id = _latest_run(demo)
    with Reader(demo) as r:
        before = [d.reason for d in explain(r, run_id)]
    plugin = _BrokenKind()
    plugin_manager().register(plugin)
    try:
        with Reader(demo) as r:
            assert [d.reason for d in explain(r, run_id)] == before and before
            doc = json.loads(json.dumps(explain_document(r, run_id)))
        out = io.StringIO()
        print_explain(doc, Console(file=out, width=200, force_terminal=False), limit=3)
        faults: list = []
        with Reader(demo) as r:
            d = explain(r, run_id)[0]
        limiters([], [d], [], None, faults)
    finally:
        plugin_manager().unregister(plugin)
    assert doc["faults"] == [{"kind": "broken", "error": "KeyError: 'no such column'"}]
    assert "compdiag: the 'broken' analysis failed on this run (KeyError" in out.getvalue()
    assert [f.kind for f in faults] == ["broken"] and "ZeroDivisionError" in faults[0].error
    with Reader(demo) as r:
        assert explain_document(r, run_id)["faults"] == []


def test_an_unknown_kind_is_shown_by_its_name_and_ranked_last_on_a_tie() -> None:
    """A kind no spec declares (a plugin without compdiag_kinds) never raises KeyError: it is
    titled by its name, uncoloured, and goes after every declared kind of equal score."""
    from rich.console import Console

    from compdiag.views.explain import diagnosis_title, header_lines, print_panels
    from compdiag_tui.widgets._diagnoses_panel import diagnosis_label

    def d(kind: str) -> Diagnosis:
        return Diagnosis(kind, stage=None, compile_id="0/0", reason="r", user_frame=UserFrame(),
                         explanation=None, fix="f", score=100.0)

    ranked = rank([d("mystery_kind"), d("fusion"), d("cache")])
    assert [x.kind for x in ranked] == ["fusion", "cache", "mystery_kind"]
    j = d("mystery_kind").to_json()
    assert diagnosis_title(1, j) == "#1 mystery kind  compile 0/0"
    doc = {"run": {"id": 1, "counts": {}}, "diagnoses": [j]}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("compdiag.views.explain.run_line", lambda run: "run 1")
        assert "1 mystery kind" in header_lines(doc)[1]
    print_panels([j], Console(file=io.StringIO()))
    assert diagnosis_label(j).plain.strip().startswith("mystery kind")


def test_every_builtin_kind_declares_a_spec_in_its_own_module() -> None:
    """Each kind module's SPEC names its KIND, its details types are Details, its cost
    classes score, and the ties differ (ranking is deterministic between kinds)."""
    from compdiag.analyses.diagnoses import builtin_modules
    from compdiag.analyses.diagnosis import Details

    specs = kind_specs()
    ties = [s.tie for s in specs.values()]
    assert len(set(ties)) == len(ties)
    for module in builtin_modules():
        spec = module.SPEC
        assert isinstance(spec, KindSpec) and spec.name == module.KIND
        assert specs[module.KIND] is spec
        assert spec.title and spec.style and len(spec.words) == 2
        assert all(issubclass(t, Details) for t in spec.details)
        for cls in spec.costs:
            assert spec.score(cls) == spec.costs[cls].base
        with pytest.raises(ValueError, match="no cost class"):
            spec.score("no_such_class")


def test_kinds_do_not_import_each_other() -> None:
    """A kind module imports nothing from another kind (shared helpers live in analyses/:
    fixes.py, rules.py, context.py), at module level or inside a function."""
    for path in sorted(KINDS_DIR.glob("*.py")):
        if path.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            bad = [n for n in names if n.startswith("compdiag.analyses.diagnoses")]
            assert not bad, f"{path.name} imports {bad}"


def test_one_rule_matcher_all_and_any_words_case_insensitive() -> None:
    assert every("Recompiling function", "guard failure").found_in(
        "recompiling FUNCTION f: triggered by the following guard failure")
    assert not every("a", "zz").found_in("a b")
    assert one_of("cpu ops", "cpu device").found_in("skipping: CPU Ops (aten.sum)")
    assert Words(all=("reduction",), any=("stride", "contiguous")).found_in(
        "Reduction over a non-contiguous dim")
    assert not Words(all=("reduction",), any=("stride",)).found_in("reduction")
    assert every().found_in("anything")
    assert first([(one_of("x"), 1), (every(), 2)], "no match here") == 2
    assert first([(one_of("x"), 1)], None, default=3) == 3
    assert found(["needle"], "hay", "NEEDLE")


def test_cudagraph_limiter_reads_the_typed_details_not_the_reason() -> None:
    """Regression (issue 35, item 5): the limiter told re-recording and partitioning apart by
    the reason's first words; a reason worded otherwise was costed as a skip."""
    from compdiag.analyses.diagnoses import cudagraphs as CG

    timings = SimpleNamespace(graphs_of=lambda cids: [], share=lambda gs: 0.0)

    def limiter(problem: str) -> str:
        d = Diagnosis("cudagraph", stage=None, compile_id="0/0", reason="worded otherwise",
                      user_frame=UserFrame(), explanation=None, fix="f", score=1.0,
                      details=CG.CudagraphDetails(problem))
        return CG.compdiag_limiter(diagnosis=d, timings=timings).kind

    assert limiter(CG.RERECORDED_GRAPH) == "cudagraph_rerecord"
    assert limiter(CG.PARTITIONED_GRAPH) == "cudagraph_partitioned"
    assert limiter(CG.SKIPPED) == "cudagraph_skipped"


# -- the docs say what the code does ---------------------------------------------------------
def _backticked(text: str) -> set[str]:
    return set(re.findall(r"`([a-z_]+)`", text))


def test_docs_json_kinds_list_is_the_registered_kinds() -> None:
    """docs/json.md's `diagnoses[].kind` row names exactly the built-in kinds' specs."""
    doc = (ROOT / "docs" / "json.md").read_text()
    row = next(line for line in doc.splitlines() if line.startswith("| `diagnoses[].kind` |"))
    documented = _backticked(row.split("|")[2])
    assert documented == set(kind_specs()), documented ^ set(kind_specs())


def test_docs_architecture_kinds_table_is_the_kind_modules() -> None:
    """docs/architecture.md's kinds table: one row per kind, naming the module declaring it."""
    from compdiag.analyses.diagnoses import builtin_modules

    doc = (ROOT / "docs" / "architecture.md").read_text()
    section = doc.split("## Diagnosis kinds", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"^\| `(\w+)` \| `(\w+\.py)`", line)
        if m:
            rows[m.group(1)] = m.group(2)
    code = {m.KIND: Path(m.__file__).name for m in builtin_modules()}
    assert rows == code


def test_docs_store_version_is_the_code_s() -> None:
    from compdiag.store.schema import STORE_VERSION

    arch = (ROOT / "docs" / "architecture.md").read_text()
    store = (ROOT / "docs" / "store.md").read_text()
    said = re.search(r"`STORE_VERSION` \(the file's layout, in its `meta` table;\s+(\d+)", arch)
    assert said and int(said.group(1)) == STORE_VERSION, "docs/architecture.md"
    said = re.search(r"`STORE_VERSION = (\d+)`", store)
    assert said and int(said.group(1)) == STORE_VERSION, "docs/store.md"


def test_no_module_over_600_lines_in_ingest_and_analyses() -> None:
    for pkg in ("ingest", "analyses"):
        for path in (ROOT / "compdiag" / pkg).rglob("*.py"):
            n = len(path.read_text().splitlines())
            assert n <= 600, f"{path.relative_to(ROOT)}: {n} lines"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
