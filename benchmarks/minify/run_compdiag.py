"""compdiag on each scenario: `compdiag run [--check-accuracy] prog.py`, then
`compdiag minify --json`, then the plain repro it wrote (`python repro.py` must fail) and its
line count.

    python benchmarks/minify/run_compdiag.py [NAME ...]   # -> results_compdiag.json
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scenarios import SCENARIOS  # noqa: E402

HERE = Path(__file__).parent
OUT = HERE / "results_compdiag.json"


def run(sc) -> dict:
    work = Path(tempfile.mkdtemp(prefix=f"cdmin_{sc.name}_"))
    # One Inductor cache per scenario: AOTAutograd caches a backward graph compiled with
    # one scenario's injector, and another scenario's identical graph would load it.
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(work / "inductor-cache")
    script = work / "prog.py"
    script.write_text(sc.script())
    store = work / "s.db"
    cmd = [sys.executable, "-m", "compdiag", "run", "--store", str(store)]
    if sc.kind == "accuracy":
        cmd.append("--check-accuracy")
    t0 = time.time()
    env = dict(os.environ)
    if sc.kind == "crash":
        env["COMPDIAG_KEEP_GRAPHS"] = "1"   # keep graph + inputs before the first call
    p = subprocess.run(cmd + [str(script)], cwd=work, capture_output=True, text=True, env=env)
    row = {"scenario": sc.name, "kind": sc.kind, "run_s": round(time.time() - t0, 1)}
    t0 = time.time()
    q = subprocess.run([sys.executable, "-m", "compdiag", "minify", "--store", str(store),
                        "--json", "-o", str(work / "repro.py")], cwd=work, capture_output=True,
                       text=True)
    row["minify_s"] = round(time.time() - t0, 1)
    if q.returncode != 0:
        row.update(ok=False, error=q.stderr[-1500:], run_stderr=p.stderr[-800:])
        return row
    doc = json.loads(q.stdout)
    r = subprocess.run([sys.executable, "repro.py"], cwd=work, capture_output=True, text=True)
    row.update(ok=r.returncode != 0, queries=doc["queries"], final_nodes=doc["nodes"],
               repro_lines=len((work / "repro.py").read_text().splitlines()),
               repro_error=next((ln for ln in reversed(r.stderr.splitlines())
                                 if "Error" in ln), "")[:200],
               initial_nodes=doc["initial_nodes"], ops=doc["ops"],
               one_minimal=doc["one_minimal"], per_pass=doc["per_pass"],
               repro_exit=r.returncode, dir=str(work))
    return row


def main(names: list[str]) -> None:
    results = json.loads(OUT.read_text()) if OUT.exists() else {}
    for sc in SCENARIOS:
        if names and sc.name not in names:
            continue
        row = run(sc)
        results[sc.name] = row
        print(json.dumps(row), flush=True)
        OUT.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
