"""The README table from results_torch.json and results_compdiag.json (markdown on stdout)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scenarios import SCENARIOS  # noqa: E402

HERE = Path(__file__).parent


def main() -> None:
    torch_rows = json.loads((HERE / "results_torch.json").read_text())
    ours = json.loads((HERE / "results_compdiag.json").read_text())
    print("| scenario | failure | final nodes (compdiag / torch) | queries (compdiag / torch) "
          "| minify wall s (compdiag / torch) | repro.py lines | compdiag result |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    tq = oq = 0
    ratios = []
    groups: dict[str, list[int]] = {"forward": [0, 0], "backward": [0, 0]}  # [compdiag, torch]
    for sc in SCENARIOS:
        t, o = torch_rows.get(sc.name, {}), ours.get(sc.name, {})
        if not t and not o:
            continue
        t_ok, o_ok = t.get("ok"), o.get("ok")
        t_nodes = t.get("final_nodes") if t_ok else "failed"
        t_q = t.get("queries") if t_ok else "-"
        if t_ok and o_ok:
            tq += t["queries"]
            oq += o["queries"]
            ratios.append(o["queries"] / t["queries"])
            g = groups["backward" if sc.name.startswith("backward_") else "forward"]
            g[0] += o["queries"]
            g[1] += t["queries"]
        note = (f"{o.get('initial_nodes')}→{o.get('final_nodes')} nodes, "
                f"{'1-minimal' if o.get('one_minimal') else 'not 1-minimal'}, repro exit "
                f"{o.get('repro_exit')}") if o_ok else f"failed: {str(o.get('error', ''))[-80:]}"
        print(f"| {sc.name} | {sc.kind} | {o.get('final_nodes', '-')} / {t_nodes} "
              f"| {o.get('queries', '-')} / {t_q} | {o.get('minify_s', '-')} / "
              f"{t.get('minify_s', '-')} | {o.get('repro_lines', '-')} | {note} |")
    if tq:
        print(f"\nQueries where both minified: compdiag {oq}, torch {tq}: ratio "
              f"{oq / tq:.2f}x (mean of the per-scenario ratios {sum(ratios) / len(ratios):.2f}x).")
        # the forward graphs' failures and the lazily compiled backward graph's, apart
        print("; ".join(f"{name}: compdiag {c}, torch {q}, {c / q:.2f}x"
                        for name, (c, q) in groups.items() if q) + ".")
    lines = [o["repro_lines"] for o in ours.values() if o.get("ok") and o.get("repro_lines")]
    if lines:
        print(f"repro.py lines: {', '.join(map(str, lines))} (longest {max(lines)}).")


if __name__ == "__main__":
    main()
