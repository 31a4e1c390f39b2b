"""The TUI's packaging and command line: tui/ installs as `compdiag_tui`, every package
folder is listed in pyproject.toml, `compdiag tui` is registered with --store and RUN."""

from __future__ import annotations

import subprocess
import sys

from pathlib import Path

import pytest

import compdiag_tui
from compdiag.cli import main

tomllib = pytest.importorskip("tomllib")     # Python 3.11+; the check is the same on 3.10

REPO = Path(__file__).resolve().parent.parent


def test_tui_folder_imports_as_compdiag_tui() -> None:
    assert Path(compdiag_tui.__file__).resolve().parent == REPO / "tui"


def test_every_package_folder_is_in_pyproject() -> None:
    """Every folder of .py files ships (packages with __init__.py and plain folders such as
    compdiag/bisect/hook, which packages.find used to pick up as namespace packages)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    assert config["package-dir"] == {"compdiag_tui": "tui"}
    on_disk = set()
    for root, name in (("compdiag", "compdiag"), ("tui", "compdiag_tui")):
        for module in (REPO / root).rglob("*.py"):
            rel = module.parent.relative_to(REPO / root)
            if "__pycache__" not in rel.parts:
                on_disk.add(".".join([name, *rel.parts]))
    missing = on_disk - listed
    assert not missing, f"add {sorted(missing)} to [tool.setuptools] packages in pyproject.toml"


def test_tui_subcommand_is_registered(capsys) -> None:
    try:
        main(["tui", "--help"])
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    assert "--store DB" in out and "RUN" in out


def test_tui_on_a_missing_store_is_one_line(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "compdiag", "tui", "--store",
                        str(tmp_path / "none.db")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert p.stderr.startswith("compdiag: error: no store at") and p.stderr.count("\n") == 1


def test_tui_on_an_unknown_run_is_one_line(tmp_path: Path) -> None:
    from compdiag_tui.demo_store import build_demo_store

    store = build_demo_store(tmp_path / "demo.db", compiles=3)
    p = subprocess.run([sys.executable, "-m", "compdiag", "tui", "--store", str(store), "7"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "no run 7" in p.stderr
