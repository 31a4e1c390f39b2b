"""Parallel `compdiag run`s often create the same new store at once (CI, the test suite's own
side-by-side scenarios): every one of them must see a whole store, never half a schema."""

from __future__ import annotations

import subprocess
import sys

WRITE = ("import sys; from compdiag.store.writer import Writer; w = Writer(sys.argv[1]); "
         "w.begin_run(source='run', argv=['x']); w.close(); print('ok')")


def test_concurrent_creation_of_one_new_store(tmp_path):
    for trial in range(3):
        db = tmp_path / f"s{trial}.db"
        procs = [subprocess.Popen([sys.executable, "-c", WRITE, str(db)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(6)]
        outs = [p.communicate(timeout=120) for p in procs]
        assert all(o.strip() == "ok" for o, _ in outs), [e[-500:] for _, e in outs]
        from compdiag.store.reader import Reader

        with Reader(db) as r:
            assert len(r.runs()) == 6
