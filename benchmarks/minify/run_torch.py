"""PyTorch's own minifier on each scenario: run the program with TORCHDYNAMO_REPRO_AFTER=aot
(level 2 for errors, 4 for accuracy), then `python minifier_launcher.py minify --no-isolate`
(in-process queries, like compdiag's). Records final nodes, "Made N queries" and wall time.

    python benchmarks/minify/run_torch.py [NAME ...]   # -> benchmarks/minify/results_torch.json
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scenarios import SCENARIOS  # noqa: E402

HERE = Path(__file__).parent
OUT = HERE / "results_torch.json"


def final_nodes(repro: str) -> list[str]:
    """The ops in repro.py's Repro.forward (one `x = torch.ops...(...)` line each)."""
    body = repro.split("def forward", 1)[-1].split("\ndef ", 1)[0].split("\nmod = ", 1)[0]
    return re.findall(r"= (torch\.ops\.[\w.]+)\(", body)


def run(sc) -> dict:
    work = Path(tempfile.mkdtemp(prefix=f"torchmin_{sc.name}_"))
    # One Inductor cache per scenario: AOTAutograd caches a backward graph compiled with
    # one scenario's injector, and another scenario's identical graph would load it.
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(work / "inductor-cache")
    # 4: accuracy; 3: dump the launcher before compiling (a crash leaves nothing after)
    level = {"accuracy": 4, "crash": 3}.get(sc.kind, 2)
    prelude = (f'torch._dynamo.config.repro_after = "aot"\n'
               f"torch._dynamo.config.repro_level = {level}\n"
               f'torch._dynamo.config.debug_dir_root = "{work}"\n')
    script = work / "prog.py"
    script.write_text(sc.script(prelude))
    t0 = time.time()
    p = subprocess.run([sys.executable, str(script)], cwd=work, capture_output=True, text=True)
    t_run = time.time() - t0
    m = re.search(r"(\S+)minifier_launcher\.py", p.stderr)
    row = {"scenario": sc.name, "kind": sc.kind, "run_s": round(t_run, 1)}
    if not m:
        row.update(ok=False, error="no minifier_launcher.py written", stderr=p.stderr[-1500:])
        return row
    launcher_dir = Path(m.group(1))
    t0 = time.time()
    isolate = [] if sc.kind == "crash" else ["--no-isolate"]
    q = subprocess.run([sys.executable, str(launcher_dir / "minifier_launcher.py"), "minify",
                        *isolate], cwd=launcher_dir, capture_output=True, text=True)
    row["minify_s"] = round(time.time() - t0, 1)
    made = re.search(r"Made (\d+) queries", q.stderr + q.stdout)
    row["queries"] = int(made.group(1)) if made else None
    repro = launcher_dir / "repro.py"
    if repro.exists():
        ops = final_nodes(repro.read_text())
        row.update(ok=made is not None, final_nodes=len(ops), ops=ops)
    else:
        row.update(ok=False, error="no repro.py", stderr=q.stderr[-1500:])
    if not made:
        row["stderr"] = q.stderr[-1500:]
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
