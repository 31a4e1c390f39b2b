"""`compdiag minify` end to end on CPU, one injected Inductor bug per failure kind:
capture under `compdiag run`, minify, then the repro under plain python (exit 1), and the
same repro with the injector removed (exit 0).

The three pipelines run side by side (compiles dominate; a busy 2-core machine)."""

from __future__ import annotations

import json
import re
import sys
import threading
from pathlib import Path

import pytest

from cdtest import base_env, run_cmd
from json_doc import assert_documented

SCRIPTS = Path(__file__).parent / "minify_scripts"
KINDS = ("compile_error", "runtime_error", "accuracy")
INJECTOR = re.compile(r"^\s*'cpp\.inject_relu_bug_TESTING_ONLY': .*\n", re.M)


def pipeline(kind: str, root: Path, env: dict[str, str]) -> dict:
    work = root / kind
    work.mkdir()
    store = work / "s.db"
    out: dict = {"work": work}
    run = [sys.executable, "-m", "compdiag", "run", "--store", str(store)]
    if kind == "accuracy":
        run.append("--check-accuracy")
    out["run"] = run_cmd(run + [str(SCRIPTS / f"{kind}.py")], env=env, cwd=work)
    out["minify"] = run_cmd([sys.executable, "-m", "compdiag", "minify", "--store", str(store),
                             "--json", "-o", str(work / "repro.py")], env=env, cwd=work)
    if out["minify"].returncode != 0:
        return out
    out["doc"] = json.loads(out["minify"].stdout)
    # plain python, outside the repo, no compdiag on the path
    clean = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    out["repro"] = run_cmd([sys.executable, "-I", "repro.py"], env=clean, cwd=work)
    text = (work / "repro.py").read_text()
    fixed = work / "fixed.py"
    fixed.write_text(INJECTOR.sub("", text))
    out["fixed"] = run_cmd([sys.executable, "-I", "fixed.py"], env=clean, cwd=work)
    return out


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("minify")
    env = base_env(root / "inductor-cache")
    res: dict[str, dict] = {}
    errors: list[BaseException] = []

    def go(kind: str) -> None:
        try:
            res[kind] = pipeline(kind, root, env)
        except BaseException as exc:  # noqa: BLE001 - reported by the tests
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(k,)) for k in KINDS]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return res


def _check(r: dict, kind: str, exc_type: str, op: str) -> dict:
    assert r["minify"].returncode == 0, (r["run"].stderr[-3000:], r["minify"].stderr[-3000:])
    doc = r["doc"]
    assert set(doc) >= {"schema_version", "failure", "input_nodes", "output_nodes", "queries",
                        "ops", "repro"}
    assert_documented(doc, "minify")  # docs/json.md's keys
    assert doc["failure"]["kind"] == kind
    assert doc["failure"]["exc_type"] == exc_type
    assert len(doc["ops"]) == 1 and doc["ops"][0].endswith(op), doc
    assert doc["one_minimal"] is True
    assert doc["output_nodes"] == 1
    assert 1 <= doc["queries"] <= 12, doc
    repro_text = (r["work"] / "repro.py").read_text()
    assert "compdiag" not in repro_text.split('"""', 2)[2].replace("compdiag oracle", "")
    assert "import pickle" not in repro_text and "torch.load" not in repro_text
    assert "inject_relu_bug_TESTING_ONLY" in repro_text
    assert r["repro"].returncode == 1, (r["repro"].stdout, r["repro"].stderr[-3000:])
    assert "bug present" in r["repro"].stdout
    assert r["fixed"].returncode == 0, (r["fixed"].stdout, r["fixed"].stderr[-3000:])
    assert "fixed" in r["fixed"].stdout
    return doc


@pytest.mark.slow
def test_compile_error(results):
    doc = _check(results["compile_error"], "compile_error", "CppCompileError", "relu")
    assert doc["initial_nodes"] == 5
    assert doc["input_nodes"] == 1          # the sin+y value, cut and fed eagerly


@pytest.mark.slow
def test_runtime_error_with_parameters(results):
    doc = _check(results["runtime_error"], "runtime_error", "RuntimeError", "relu")
    assert doc["failure"]["stage"] == "runtime"
    assert doc["initial_nodes"] == 3        # linear, relu, linear (weights lifted to inputs)


@pytest.mark.slow
def test_accuracy_with_int_input_and_shrunk_shape(results):
    r = results["accuracy"]
    doc = _check(r, "accuracy", "AccuracyMismatch", "relu")
    text = (r["work"] / "repro.py").read_text()
    # the 20x20 input shrinks until it is written inline
    assert "load(" not in text.split("def make_inputs", 1)[1]
    assert not list(r["work"].glob("repro_inputs/*.bin"))


def test_minify_without_failing_graph_is_one_line_error(tmp_path, capsys):
    from compdiag.cli import main
    from compdiag.store.writer import Writer

    w = Writer(tmp_path / "s.db")
    w.begin_run(source="run", argv=["x.py"])
    w.close()
    assert main(["minify", "--store", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "no failing graph" in err
