"""What issue 34's import speed-ups must keep: the same values as the slower code they replace
(no torch, no compile; docs/capture.md "Import speed, round 12")."""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compdiag.formats import fast_json
from compdiag.ingest import parse_caches as PC

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(_JSON)
@example(-2**63 - 1)
@example({"n": [2**64, -2**70]})
def test_fast_json_reads_what_json_reads(value: object) -> None:
    """Any JSON the standard library writes (integers past 64 bits and lone surrogates
    included) reads back as json.loads reads it. Caught: orjson reads integers past 64 bits
    as floats (the module assumed it refused them), so -9223372036854775809 came back as
    -9.223372036854776e+18 (hypothesis drew it on a fresh clone, 2026-12-03)."""
    text = json.dumps(value)
    assert fast_json.loads(text) == json.loads(text)


def test_fast_json_falls_back_where_orjson_refuses() -> None:
    """NaN and Infinity (torch's json.dumps writes them), a repeated key (the last wins), and
    text that is not JSON (the same ValueError json.loads raises)."""
    got = fast_json.loads('{"a": NaN, "b": Infinity, "c": 1, "c": 2, "d": 123456789012345678901}')
    assert math.isnan(got["a"]) and got["b"] == math.inf
    assert got["c"] == 2 and got["d"] == 123456789012345678901
    assert list(got) == list(json.loads('{"a": 1, "b": 2, "c": 1, "c": 2, "d": 3}'))
    for bad in ("", "{", "[1,]", "nul"):
        with pytest.raises(ValueError):
            fast_json.loads(bad)


# The oracle: the format as one full-line regex, as the parser read it before round 12.
_KEY_COMPONENT = re.compile(r"^\[(?P<hash>[0-9a-z]+)\] (?P<name>[^:\n]+?): ?(?P<value>.*)$", re.S)


def _components_before(lines: list) -> list[list[str]]:
    """key_components as it was before round 12: one full-line regex match per line."""
    out = []
    for line in lines:
        m = _KEY_COMPONENT.match(line) if type(line) is str else None
        if m is not None:
            out.append([m["name"].strip(), m["hash"], m["value"][:PC.COMPONENT_VALUE_LIMIT]])
    return out


_LINES = st.lists(st.one_of(
    st.builds(lambda h, n, v, sp: f"[{h}] {n}:{' ' if sp else ''}{v}",
              st.text("0123456789abcdefz", min_size=1, max_size=6),
              st.text(st.characters(blacklist_characters=":\n"), min_size=1, max_size=8),
              st.text(max_size=12), st.booleans()),
    st.text(max_size=12), st.integers()), max_size=8)


@settings(max_examples=300, deadline=None)
@given(_LINES)
def test_a_lookups_components_are_what_the_line_by_line_parse_gave(lines: list) -> None:
    """The components (parsed once per distinct line, kept across lookups) and their JSON,
    built from each line's, are the per-line parse and json.dumps of it. Caught: the line
    cache and `components_json` did not exist before (KeyError)."""
    for _ in range(2):  # the second time from the lines kept
        info = PC.cache_lookup(json.dumps({"key": "k", "components": lines}))
        assert info["components"] == _components_before(lines) == PC.key_components(lines)
        assert info["components_json"] == json.dumps(_components_before(lines))


def test_the_kept_lines_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory stays flat in the number of lookups: the kept lines are dropped past a size,
    and a long value is still cut at COMPONENT_VALUE_LIMIT."""
    monkeypatch.setattr(PC, "_SEEN_CHARS", 1000)
    monkeypatch.setattr(PC, "_seen", {})
    monkeypatch.setattr(PC, "_seen_chars", 0)
    long = "[ab] graph: " + "x" * (PC.COMPONENT_VALUE_LIMIT + 50)
    for i in range(200):
        assert PC.key_components([f"[{i:x}] n{i}: v", long])[1][2] == "x" * PC.COMPONENT_VALUE_LIMIT
        assert sum(map(len, PC._seen)) <= 1000 + len(long) + 20


def test_profile_import_compares_stores_table_by_table(tmp_path) -> None:
    """benchmarks/profile_import.py (the round's tool): two imports of one log compare equal
    table by table, a store with one record changed does not (exit 1), and `cpu` imports a log
    in one process. Caught: the tool did not exist before."""
    import sqlite3
    import subprocess
    import sys
    from pathlib import Path

    tool = Path(__file__).resolve().parent.parent / "benchmarks" / "profile_import.py"
    ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    head = "V1202 08:00:00.000000 1 torch/_logging/x.py:1] "
    log = tmp_path / "trace.log"
    log.write_text("\n".join([
        head + json.dumps({"dynamo_start": {"stack": []}, **ids}),
        head + json.dumps({"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"},
                           "has_payload": True, **ids}),
        "\t" + json.dumps({"key": "k", "components": [f"[h{i}] opt{i}: {i}" for i in range(5)]}),
        head + json.dumps({"chromium_event": {}, "has_payload": True, **ids}),
        "\t" + json.dumps({"name": "dynamo", "ph": "B", "ts": 1, "pid": 0, "args": {}}),
        head + json.dumps({"compilation_metrics": {"co_name": "f"}, **ids})]) + "\n")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(tool), *args], capture_output=True,
                              text=True, timeout=300, cwd=tmp_path)

    for name in ("a.db", "b.db"):
        p = subprocess.run([sys.executable, "-m", "compdiag", "import", str(log), "--store",
                            str(tmp_path / name)], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
    same = run("compare", "a.db", "b.db")
    assert same.returncode == 0 and " tables equal" in same.stdout, same.stdout + same.stderr
    with sqlite3.connect(tmp_path / "b.db") as conn:
        conn.execute("UPDATE records SET kind = 'changed' WHERE seq = 1")
    differ = run("compare", "a.db", "b.db")
    assert differ.returncode == 1 and "records:" in differ.stdout, differ.stdout
    cpu = run("cpu", str(log))
    assert cpu.returncode == 0 and "s of CPU in one process" in cpu.stdout, cpu.stderr


def test_a_big_float_is_still_the_float_json_reads() -> None:
    """The re-read is only ever json.loads: a float written large (1e19, -2e300) and an
    integer past 64 bits beside ordinary values come back as json.loads gives them. Caught:
    orjson (3.10-3.13) read -9223372036854775809 as -9.223372036854776e+18."""
    for text in ('{"a": 1e19, "b": [1, -2e300]}', '[0, {"n": -9223372036854775809}]',
                 '{"n": 18446744073709551616, "s": "x", "t": true, "u": null}'):
        got = fast_json.loads(text)
        assert got == json.loads(text) and repr(got) == repr(json.loads(text))
