"""A broken analysis module must not take the core commands down (fail open)."""

from __future__ import annotations

import compdiag.cli as cli


def test_broken_extra_module_leaves_core_commands_working(tmp_path, monkeypatch, capsys):
    (tmp_path / "broken_thing_cli.py").write_text("raise RuntimeError('boom at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cli, "EXTRA_MODULES", ("broken_thing_cli", "compdiag.analyses.explain_cli"))
    monkeypatch.setattr(cli, "_EXTRA_COMMANDS", [])
    monkeypatch.setattr(cli, "_EXTRA_HELP", {})
    monkeypatch.setattr(cli, "_EXTRA_BROKEN", [])
    store = tmp_path / "none.db"
    assert cli.main(["runs", "--store", str(store)]) == 2  # the core command still parses
    assert "no store at" in capsys.readouterr().err
    assert cli.main(["broken_thing", "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "boom at import" in err and "unavailable" in err
    # explain still loads beside the broken one, and a second main() registers nothing twice
    assert cli.main(["explain", "--store", str(store)]) == 2
    assert [n for n, _ in cli._EXTRA_COMMANDS].count("explain") == 1
