"""The store: Writer -> Reader round trip (hypothesis), durability across SIGKILL, and bad
store files (corrupt, foreign, newer schema) giving one-line errors, never a traceback."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cdtest import SCRIPTS, base_env, compdiag_args, run_cmd
from compdiag.store.reader import Reader, compile_id_key
from compdiag.store.schema import STORE_VERSION, StoreError, connect
from compdiag.store.writer import Writer

# -- strategies -------------------------------------------------------------------------------
text = st.text(max_size=200)
opt_text = st.none() | text
int64 = st.integers(min_value=-(2 ** 63), max_value=2 ** 63 - 1)
json_scalar = (st.none() | st.booleans() | st.integers() | text
               | st.floats(allow_nan=False, allow_infinity=False))
json_value = st.recursive(json_scalar, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(text, inner, max_size=4), max_leaves=12)
json_object = st.dictionaries(text, json_value, max_size=5)
cid = st.none() | st.from_regex(r"\A(!\d{1,2}/)?\d{1,3}/\d{1,3}(_\d)?\Z")

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("store") / "roundtrip.db"


@SETTINGS
@given(argv=st.lists(text, max_size=5), cwd=opt_text, torch_version=opt_text, device=opt_text,
       mode=opt_text, warnings=st.lists(text, max_size=3), exit_code=st.none() | int64,
       status=text)
def test_run_round_trip(store: Path, argv, cwd, torch_version, device, mode, warnings,
                        exit_code, status) -> None:
    w = Writer(store)
    try:
        run_id = w.begin_run(source="run", argv=argv, cwd=cwd, torch_version=torch_version,
                             device=device, mode=mode, pid=123)
        for message in warnings:
            w.warn(run_id, message)
        w.end_run(run_id, exit_code=exit_code, status=status)
    finally:
        w.close()
    with Reader(store) as r:
        run = r.run(run_id)
        assert run["argv"] == argv
        assert (run["cwd"], run["torch_version"], run["device"], run["mode"]) == \
            (cwd, torch_version, device, mode)
        assert run["exit_code"] == exit_code and run["status"] == status
        assert run["pid"] == 123 and run["ended_at"] >= run["started_at"]
        assert r.warnings(run_id) == warnings
        assert r.resolve_run(None) == r.resolve_run(str(run_id)) == run_id


@SETTINGS
@given(
    breaks=st.lists(st.fixed_dictionaries({
        "compile_id": cid, "reason": text, "gb_type": opt_text, "gb_code": opt_text,
        "filename": opt_text, "lineno": st.none() | int64, "line": opt_text,
        "hints": st.lists(text, max_size=3)}), max_size=4),
    kernels=st.lists(st.fixed_dictionaries({
        "compile_id": cid, "name": text, "backend": st.sampled_from(["cpp", "triton", "extern"]),
        "source": opt_text, "fx_nodes": st.lists(text, max_size=3),
        "fused_ops": st.lists(text, max_size=3), "user_lines": st.lists(text, max_size=2)}),
        max_size=4),
    records=st.lists(st.tuples(text, cid, json_object, opt_text), max_size=5),
    fusion=st.lists(st.tuples(opt_text, opt_text, st.booleans(), opt_text), max_size=3),
    tensor=st.tuples(st.binary(max_size=64), st.lists(st.integers(0, 2 ** 31), max_size=4)),
)
def test_rows_round_trip(store: Path, breaks, kernels, records, fusion, tensor) -> None:
    """Whatever text, unicode, None or JSON goes in comes back out unchanged, decoded."""
    w = Writer(store, flush_interval=0.0)  # flush on every row: many small transactions
    try:
        run_id = w.begin_run(source="import", argv=[])
        for gb in breaks:
            w.insert("graph_breaks", run_id=run_id, **gb)
        for k in kernels:
            w.insert("kernels", run_id=run_id, **k)
        for seq, (kind, compile_id, metadata, payload) in enumerate(records):
            w.insert("records", run_id=run_id, seq=seq, kind=kind, compile_id=compile_id,
                     metadata=metadata, payload=payload)
        for node1, node2, fused, reason in fusion:
            w.insert("fusion", run_id=run_id, compile_id="0/0", node1=node1, node2=node2,
                     fused=fused, reason=reason)
        data, shape = tensor
        w.insert("tensors", run_id=run_id, compile_id=None, role="input:0", dtype="float32",
                 shape=shape, data=data)
    finally:
        w.close()
    with Reader(store) as r:
        gb_keys = ("compile_id", "reason", "gb_type", "gb_code", "filename", "lineno", "line",
                   "hints")
        assert [{k: g[k] for k in gb_keys} for g in r.graph_breaks(run_id)] == breaks
        k_keys = ("compile_id", "name", "backend", "source", "fx_nodes", "fused_ops",
                  "user_lines")
        assert [{k: g[k] for k in k_keys} for g in r.kernels(run_id)] == kernels
        got = list(r.records(run_id))
        assert [(g["kind"], g["compile_id"], g["metadata"], g["payload"]) for g in got] == \
            records
        assert [(f["node1"], f["node2"], f["fused"], f["reason"]) for f in r.fusion(run_id)] \
            == fusion
        assert all(isinstance(f["fused"], bool) for f in r.fusion(run_id))
        [t] = r.tensors(run_id)
        assert bytes(t["data"]) == tensor[0] and t["shape"] == tensor[1]
        counts = r.counts(run_id)
        assert (counts["graph_breaks"], counts["kernels"], counts["records"]) == \
            (len(breaks), len(kernels), len(records))
        if records:
            kind, compile_id, _, payload = records[-1]
            same = [rec for rec in records if rec[0] == kind and rec[1] == compile_id]
            assert r.artifact(run_id, compile_id, kind) == same[-1][3]
        light = r.kernels(run_id, with_source=False)
        assert [k["name"] for k in light] == [k["name"] for k in kernels]


@SETTINGS
@given(first=st.dictionaries(st.sampled_from(["dynamo", "aot", "inductor", "total"]),
                             st.floats(0, 1e6), max_size=4),
       second=st.dictionaries(st.sampled_from(["dynamo", "aot", "inductor", "total"]),
                              st.floats(0, 1e6), max_size=4),
       metrics=st.none() | json_object,
       ids=st.sets(st.tuples(st.integers(0, 12), st.integers(0, 12), st.integers(0, 2)),
                   min_size=1, max_size=6).map(
           lambda s: [f"{f}/{c}" + (f"_{a}" if a else "") for f, c, a in sorted(s)]
       ).flatmap(st.permutations))
def test_compiles_upsert_and_order(store: Path, first, second, metrics, ids) -> None:
    w = Writer(store)
    try:
        run_id = w.begin_run(source="run", argv=["x"])
        for compile_id in ids:
            w.upsert("compiles", run_id=run_id, compile_id=compile_id, status="started",
                     stage_times=first)
            w.upsert("compiles", run_id=run_id, compile_id=compile_id, status="ok",
                     stage_times=second, metrics=metrics)
    finally:
        w.close()
    with Reader(store) as r:
        rows = r.compiles(run_id)
        assert [c["compile_id"] for c in rows] == sorted(ids, key=compile_id_key)
        for c in rows:  # the later upsert wins, JSON columns decoded
            assert (c["status"], c["stage_times"], c["metrics"]) == ("ok", second, metrics)
        assert r.compile(run_id, ids[0])["compile_id"] == ids[0]


def test_compile_id_key_orders_like_torch() -> None:
    """Compiled autograd's compiles ('!0/0/1') follow the frames' (they were sorted as if
    '!0' were frame 0 before CompileId); generations after a reset come last."""
    ids = ["1/0", "0/10", "0/2", "0/2_1", "0/0", "!0/0/1", None, "0/1", "0/0@1"]
    assert sorted(ids, key=compile_id_key) == \
        ["0/0", "0/1", "0/2", "0/2_1", "0/10", "1/0", "!0/0/1", "0/0@1", None]


# -- durability: a SIGKILLed writer loses at most the last flush interval -------------------
def test_rows_survive_sigkill_of_the_writer(tmp_path: Path) -> None:
    db = tmp_path / "killed.db"
    code = textwrap.dedent(f"""
        import os, signal, time
        from compdiag.store.writer import Writer
        w = Writer({str(db)!r}, flush_interval=0.1, background=True)
        run_id = w.begin_run(source="run", argv=["victim"])
        for i in range(50):
            w.insert("records", run_id=run_id, seq=i, kind="k", compile_id=None,
                     metadata={{"i": i}}, payload="p" * 1000)
        w.warn(run_id, "before the kill")
        time.sleep(1.5)  # >> flush_interval: the timer thread commits while we idle
        w.insert("records", run_id=run_id, seq=99, kind="late", compile_id=None,
                 metadata={{}}, payload=None)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    p = subprocess.run([sys.executable, "-c", code], env=base_env(), timeout=120)
    assert p.returncode == -signal.SIGKILL
    assert (tmp_path / "killed.db-wal").exists() or db.stat().st_size > 0
    with Reader(db) as r:
        [run] = r.runs()
        assert run["status"] == "running" and run["exit_code"] is None
        recs = list(r.records(run["id"], kind="k"))
        assert [rec["metadata"]["i"] for rec in recs] == list(range(50))
        assert r.warnings(run["id"]) == ["before the kill"]
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


# -- bad store files --------------------------------------------------------------------------
def _real_store(path: Path, rows: int = 3000) -> None:
    w = Writer(path)
    run_id = w.begin_run(source="run", argv=["x"])
    for i in range(rows):
        w.insert("records", run_id=run_id, seq=i, kind="k", compile_id="0/0", metadata="{}",
                 payload="x" * 300)
    w.upsert("compiles", run_id=run_id, compile_id="0/0")
    w.end_run(run_id, exit_code=0, status="done")
    w.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _make_bad(kind: str, path: Path) -> None:
    if kind == "garbage":
        path.write_bytes(os.urandom(4096) + b"not sqlite")
    elif kind == "text":
        path.write_text("compdiag store? no, just text\n" * 50)
    elif kind == "truncated":
        _real_store(path)
        data = path.read_bytes()
        path.write_bytes(data[:len(data) // 2])
    elif kind == "damaged":  # header intact, pages in the middle overwritten
        _real_store(path)
        data = bytearray(path.read_bytes())
        mid = len(data) // 2
        data[mid:mid + 100_000] = os.urandom(100_000)
        path.write_bytes(bytes(data))
    elif kind == "newer":
        _real_store(path, rows=1)
        conn = sqlite3.connect(path)
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                     (str(STORE_VERSION + 1),))
        conn.commit()
        conn.close()
    elif kind == "bad_version":
        _real_store(path, rows=1)
        conn = sqlite3.connect(path)
        conn.execute("UPDATE meta SET value = 'one' WHERE key = 'schema_version'")
        conn.commit()
        conn.close()
    elif kind == "foreign":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE photos (id INTEGER, data BLOB)")
        conn.commit()
        conn.close()
    elif kind == "directory":
        path.mkdir()
    else:
        raise AssertionError(kind)


BAD = ["garbage", "text", "truncated", "damaged", "newer", "bad_version", "foreign",
       "directory"]
READS = [["show"], ["show", "--json"], ["show", "1", "--json"], ["runs"], ["runs", "--json"]]


def _one_line_error(p) -> None:
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert p.stderr.startswith("compdiag: error: ") and p.stderr.count("\n") == 1, p.stderr
    assert p.stdout == ""


@pytest.mark.parametrize("kind", BAD)
def test_bad_store_read_commands(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    _make_bad(kind, path)
    for args in READS:
        p = run_cmd(compdiag_args(*args, "--store", path), env=base_env())
        if kind == "damaged" and args[0] == "show":
            # show reads no record pages: it may still work; it must never trace back.
            assert "Traceback" not in p.stderr, p.stderr
            if p.returncode == 0:
                continue
        _one_line_error(p)
        if kind == "newer":
            assert "newer compdiag" in p.stderr
        if kind == "foreign":
            assert "not a compdiag store" in p.stderr


@pytest.mark.parametrize("kind", ["garbage", "text", "truncated", "newer", "bad_version",
                                  "foreign", "directory"])
def test_bad_store_write_commands(kind: str, tmp_path: Path) -> None:
    """`run` and `import` refuse a store they cannot use before doing anything."""
    path = tmp_path / "store.db"
    _make_bad(kind, path)
    log = tmp_path / "trace.log"
    log.write_text('V1130 02:17:30.020000 1797 torch/_dynamo/convert_frame.py:1] '
                   '{"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0, '
                   '"attempt": 0}\n')
    _one_line_error(run_cmd(compdiag_args("import", log, "--store", path), env=base_env()))
    p = run_cmd(compdiag_args("run", "--store", path, SCRIPTS / "exit3.py"), env=base_env())
    _one_line_error(p)  # the program did not start: its "exiting with 3" is absent
    if kind == "foreign":  # somebody else's database is left as it was
        conn = sqlite3.connect(path)
        try:
            names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
        finally:
            conn.close()
        assert names == ["photos"]


def test_store_errors_in_process(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no store at"):
        Reader(tmp_path / "absent.db")
    assert not (tmp_path / "absent.db").exists()  # reading never creates a store
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    with pytest.raises(StoreError, match="empty store"):
        Reader(empty)
    _real_store(tmp_path / "ok.db", rows=1)
    with Reader(tmp_path / "ok.db") as r:
        with pytest.raises(StoreError, match="no run 7"):
            r.resolve_run(7)
        with pytest.raises(StoreError, match="RUN must be"):
            r.resolve_run("seven")
    # A new empty store has the current schema version written into it.
    conn = connect(tmp_path / "new.db", create=True)
    assert conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] \
        == str(STORE_VERSION)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_show_unknown_run_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "ok.db"
    _real_store(path, rows=1)
    for run in ("99", "latest-ish"):
        _one_line_error(run_cmd(compdiag_args("show", run, "--store", path), env=base_env()))
    p = run_cmd(compdiag_args("show", "--store", path, "--json"), env=base_env())
    assert p.returncode == 0 and '"schema_version"' in p.stdout


HUGE = "9" * 30
RUN_COMMANDS = [["show", HUGE], ["show", HUGE, "--json"], ["explain", HUGE],
                ["explain", HUGE, "--json"], ["show", "--job", HUGE], ["explain", "--job", HUGE],
                ["diff", HUGE, "1"], ["diff", "1", HUGE], ["diff", "--job", HUGE, "1", "2"],
                ["minify", HUGE], ["bisect", HUGE],
                ["check", HUGE], ["perf", HUGE], ["tui", HUGE], ["report", HUGE],
                ["export", "--perfetto", "out.json", HUGE], ["show", "9" * 5000]]


@pytest.mark.parametrize("args", RUN_COMMANDS, ids=lambda a: " ".join(a)[:40])
def test_huge_run_id_is_one_line(args: list[str], tmp_path: Path) -> None:
    """Issue 30 item 10: a run id SQLite cannot hold is a missing run, one line and exit 2, in
    every command that takes RUN. Fails on main (OverflowError: Python int too large to
    convert to SQLite INTEGER)."""
    path = tmp_path / "ok.db"
    _real_store(path, rows=1)
    p = run_cmd(compdiag_args(*args, "--store", path), env=base_env(), cwd=tmp_path)
    _one_line_error(p)
    assert ("no run" in p.stderr or "no job" in p.stderr or "RUN must be" in p.stderr), \
        p.stderr
    assert len(p.stderr) < 300, p.stderr
    assert sorted(os.listdir(tmp_path)) == ["ok.db"]


@SETTINGS
@given(values=st.lists(st.one_of(st.integers(), st.text(alphabet=st.characters()),
                                 st.binary(max_size=8), st.floats(), st.none(),
                                 st.builds(object), st.complex_numbers()), max_size=6))
def test_writer_never_fails_a_batch_on_odd_values(store: Path, values) -> None:
    """Huge ints (a corrupt log), lone surrogates (a non-UTF-8 file name), objects: stored
    somehow, and the rows queued around them are not lost."""
    w = Writer(store, flush_interval=60)  # one batch for everything
    try:
        run_id = w.begin_run(source="import", argv=["é\udcff"], cwd="/tmp/\udcff")
        for v in values:
            w.insert("graph_breaks", run_id=run_id, reason="odd", filename=v, lineno=v,
                     line=v)
        w.warn(run_id, "after the odd rows")
        w.update_run(run_id, exit_code=1 << 70, device="cpu\ud800")
        w.end_run(run_id, exit_code=0, status="done")
    finally:
        w.close()
    with Reader(store) as r:
        assert len(r.graph_breaks(run_id)) == len(values)
        assert r.warnings(run_id) == ["after the odd rows"]
        assert r.run(run_id)["status"] == "done"


@SETTINGS
@given(rows=st.lists(st.tuples(st.one_of(st.integers(), st.none(), st.text()),
                               st.text(alphabet=st.characters()),
                               st.one_of(st.text(), st.integers(), st.floats(allow_nan=False),
                                         st.builds(object))), max_size=6))
def test_insert_rows_stores_what_insert_stores(store: Path, rows) -> None:
    """Writer.insert_rows (a cache lookup's components in one call, for import speed) keeps
    each cell as insert() would, odd values included, in the order queued around it."""
    w = Writer(store, flush_interval=60)
    try:
        run_id = w.begin_run(source="import", argv=["x"])
        names = ("run_id", "cache", "seq", "compile_id", "name", "value", "hash")
        w.insert("warnings", run_id=run_id, message="before")
        w.insert_rows("cache_key_components", names,
                      [(run_id, "fx_graph", 1, *row, "h") for row in rows])
        for row in rows:
            w.insert("cache_key_components", **dict(zip(names, (run_id, "fx_graph", 2, *row,
                                                                 "h"))))
        w.warn(run_id, "after")
        with pytest.raises(ValueError):
            w.insert_rows("records", ("run_id",), [(run_id,)])
    finally:
        w.close()
    with sqlite3.connect(store) as conn:
        got = {seq: conn.execute("SELECT compile_id, name, value FROM cache_key_components"
                                 " WHERE run_id = ? AND seq = ? ORDER BY rowid",
                                 (run_id, seq)).fetchall() for seq in (1, 2)}
    assert got[1] == got[2] and len(got[1]) == len(rows)
    with Reader(store) as r:
        assert r.warnings(run_id) == ["before", "after"]


# -- read-only stores (issue 30 item 3) ------------------------------------------------------
READ_ONLY_COMMANDS = [["runs"], ["runs", "--json"], ["show"], ["show", "1", "--json"],
                      ["explain"], ["explain", "--json"]]


def _unprivileged() -> tuple[list[str], dict[str, str]] | str:
    """How to run compdiag as a user who cannot write a chmod 555 folder: ourselves when not
    root; as root, `setpriv` to nobody with a python that user may execute and compdiag's
    packages on its path. A reason (str) when there is no such way."""
    import shutil
    import sysconfig

    env = base_env()
    if os.geteuid() != 0:
        return [sys.executable], env
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return "running as root and no setpriv to become an unprivileged user"
    paths = [str(Path(__file__).resolve().parent.parent),
             sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env["HOME"] = "/nonexistent"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    pythons = [os.path.realpath(sys.executable), shutil.which(version),
               f"/usr/bin/{version}", f"/usr/local/bin/{version}"]
    for python in dict.fromkeys(p for p in pythons if p):
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", python]
        probe = subprocess.run([*prefix, "-c", "import compdiag.cli, rich"], env=env,
                               capture_output=True, timeout=60)
        if probe.returncode == 0:
            return prefix, env
    return f"no {version} that user nobody may run with compdiag importable"


def _store_copies(root: Path) -> dict[str, Path]:
    """One store three ways, each in its own folder: closed cleanly (no -wal); as a running
    writer's folder holds it (its -wal and -shm beside it, the run only in the -wal); and
    with that -wal but not its -shm (a copied artifact)."""
    import shutil

    out = {name: root / name / "store.db" for name in ("clean", "live", "wal_only", "writer")}
    for store in out.values():
        store.parent.mkdir()
    _real_store(out["clean"], rows=5)
    w = Writer(out.pop("writer"))
    w.conn.execute("PRAGMA wal_autocheckpoint=0")  # its pages stay in the -wal
    run_id = w.begin_run(source="run", argv=["live.py"])
    w.upsert("compiles", run_id=run_id, compile_id="0/0")
    w.end_run(run_id, exit_code=0, status="done")
    w.flush()
    for name, suffixes in (("live", ("", "-wal", "-shm")), ("wal_only", ("", "-wal"))):
        for suffix in suffixes:
            shutil.copyfile(f"{w.path}{suffix}", f"{out[name]}{suffix}")
    w.close()
    return out


def test_read_commands_create_nothing_beside_a_store(tmp_path: Path) -> None:
    """Issue 30 item 3, writable folder: read commands leave no -wal/-shm beside a store that
    had none. Fails on main (a `mode=ro` connection to a WAL database creates both)."""
    store = tmp_path / "store.db"
    _real_store(store, rows=5)
    for args in READ_ONLY_COMMANDS:
        p = run_cmd(compdiag_args(*args, "--store", store), env=base_env(), cwd=tmp_path)
        assert p.returncode == 0, (args, p.stderr)
        assert sorted(os.listdir(tmp_path)) == ["store.db"], (args, os.listdir(tmp_path))


def test_read_commands_on_a_read_only_folder() -> None:
    """Issue 30 item 3: a store in a chmod 555 folder (a CI artifact, a colleague's store) is
    read by every read command as an unprivileged user, whether it was closed cleanly, has a
    live writer's -wal and -shm, or a -wal without its -shm; nothing is created there. Fails
    on main ("attempt to write a readonly database")."""
    import shutil
    import tempfile

    how = _unprivileged()
    if isinstance(how, str):
        pytest.skip(how)
    prefix, env = how
    root = Path(tempfile.mkdtemp(prefix="compdiag-ro-test-"))
    try:
        os.chmod(root, 0o755)
        stores = _store_copies(root)
        before = {}
        for name, store in stores.items():
            for f in store.parent.iterdir():
                f.chmod(0o444)
            store.parent.chmod(0o555)
            before[name] = sorted(os.listdir(store.parent))
        assert before["live"] == ["store.db", "store.db-shm", "store.db-wal"]
        assert before["wal_only"] == ["store.db", "store.db-wal"]
        for name, store in stores.items():
            for args in READ_ONLY_COMMANDS:
                p = run_cmd([*prefix, "-m", "compdiag", *args, "--store", str(store)],
                            env=env, cwd=store.parent)
                assert p.returncode == 0 and "Traceback" not in p.stderr, (name, args, p.stderr)
                assert sorted(os.listdir(store.parent)) == before[name], (name, args)
            p = run_cmd([*prefix, "-m", "compdiag", "runs", "--json", "--store", str(store)],
                        env=env, cwd=store.parent)
            argvs = [r["argv"] for r in json.loads(p.stdout)["runs"]]
            # what only the -wal holds is read too
            assert argvs == {"clean": [["x"]], "live": [["live.py"]],
                             "wal_only": [["live.py"]]}[name], (name, argvs)
    finally:
        for d in root.iterdir():
            d.chmod(0o755)
            for f in d.iterdir():
                f.chmod(0o644)
        shutil.rmtree(root)


# -- issue 34: a repeated text stored once, compressed ------------------------------------------
def _store_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def _records_with(path: Path, payload: str, n: int) -> None:
    w = Writer(path)
    run = w.begin_run(source="run", argv=["x.py"])
    for i in range(n):
        w.insert("records", run_id=run, seq=i + 1, kind="artifact:fx_graph_cache_hash",
                 compile_id=f"0/{i}", metadata='{"artifact": {"name": "x"}}', payload=payload)
    w.insert("records", run_id=run, seq=n + 1, kind="small", compile_id=None,
             metadata="{}", payload="short")
    w.close()


def test_a_payload_repeated_n_times_is_stored_once_and_read_back_identical(
        tmp_path: Path) -> None:
    """Issue 34: a cache lookup's key components (~65 KB) repeat at every lookup; before
    blobs each copy took its full size in `records`, so 40 copies took 40 times the bytes."""
    import random

    rng = random.Random(0)
    # Text that compresses like torch's (repetitive lines) but not to nothing; non-ASCII too.
    payload = "\n".join(f"[{rng.getrandbits(64):016x}] example_inputs[{i}]: "
                        f"TensorMetadata(dtype=torch.float32, shape=({i}, 16)) é"
                        for i in range(800))
    assert len(payload) > 60_000
    one, many = tmp_path / "one.db", tmp_path / "many.db"
    _records_with(one, payload, 1)
    _records_with(many, payload, 40)
    grown = _store_bytes(many) - _store_bytes(one)
    assert grown < len(payload.encode()), (grown, _store_bytes(one))  # 39 more copies: < 1
    with Reader(many) as r:
        recs = list(r.records(1))
        assert [x["payload"] for x in recs] == [payload] * 40 + ["short"]
        assert recs[0]["metadata"] == {"artifact": {"name": "x"}}
        assert r.artifact(1, "0/7", "artifact:fx_graph_cache_hash") == payload
        assert r.search(1, "example_inputs[799]")[0]["kind"] == "artifact:fx_graph_cache_hash"
        size = r.record_bytes(1)
        assert size["raw"] > 40 * len(payload.encode()) > 10 * size["stored"]
        assert r.conn.execute("SELECT count(*) FROM blobs").fetchone()[0] == 1


def test_a_large_envelope_and_metrics_go_to_blobs_and_come_back(tmp_path: Path) -> None:
    """compilation_metrics' envelope carries the whole inductor config (~38 KB) at every
    compile, and the compiles row kept it a second time."""
    metrics = {"compile_id": "0/0", "inductor_config": {f"opt_{i}": i for i in range(2000)}}
    store = tmp_path / "s.db"
    w = Writer(store)
    run = w.begin_run(source="run", argv=["x.py"])
    import json as _json

    w.insert("records", run_id=run, seq=1, kind="compilation_metrics", compile_id="0/0",
             metadata=_json.dumps({"compilation_metrics": metrics}), payload=None)
    w.upsert("compiles", run_id=run, compile_id="0/0", status="ok", metrics=metrics)
    w.close()
    with Reader(store) as r:
        assert next(r.records(1))["metadata"] == {"compilation_metrics": metrics}
        assert r.compiles(1)[0]["metrics"] == metrics
        assert r.compile(1, "0/0")["metrics"] == metrics
        assert "metrics_blob" not in r.compiles(1)[0]
    # The writer deletes what only a deleted run named.
    w = Writer(store)
    w.delete_run(run)
    w.close()
    with Reader(store) as r:
        assert r.conn.execute("SELECT count(*) FROM blobs").fetchone()[0] == 0
