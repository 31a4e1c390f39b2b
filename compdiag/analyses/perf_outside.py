"""Time a compiled call spends outside its compiled graphs: Dynamo's guards, the Python
between graphs, the compiled wrappers' own work, measured as the whole call minus its graphs,
and the limiter perf names for it (analyses/perf.py)."""

from __future__ import annotations

from typing import Any

from compdiag.analyses import perf_stats as S
from compdiag.analyses.limiter import Limiter, weight
from compdiag.formats.words import plural


def outside_graphs(modules: list[dict[str, Any]], graphs: list[dict[str, Any]]
                    ) -> dict[str, Any] | None:
    """With one compiled module, the share of its compiled call spent outside its graphs:
    Dynamo's guards, the Python between graphs, the compiled wrappers' own work."""
    timed = [m for m in modules if m["compiled"] and m["eager"]]
    gs = [g for g in graphs if g["compiled"] and g["eager"]]
    if len(timed) != 1 or not gs:
        return None
    m = timed[0]
    calls = max(1, int(m.get("calls") or 1))
    in_graphs = sum(weight(g) * g["compiled"]["median"] for g in gs) / calls
    eager_graphs = sum(weight(g) * g["eager"]["median"] for g in gs) / calls
    call_c, call_e = m["compiled"]["median"], m["eager"]["median"]
    if call_c <= 0:
        return None
    return {"target": m["target"], "call_compiled_s": call_c, "call_eager_s": call_e,
            "graphs_compiled_s": in_graphs, "graphs_eager_s": eager_graphs,
            "outside_s": max(0.0, call_c - in_graphs),
            "outside_frac": max(0.0, min(1.0, (call_c - in_graphs) / call_c))}


def outside_limiter(o: dict[str, Any], graphs: list[dict[str, Any]],
                     compiles: list[dict[str, Any]]) -> Limiter:
    """The time a compiled call spends outside its graphs. Only the part beyond what eager's
    call spends outside the same ops is torch.compile's own (guards, wrappers); the rest the
    eager call pays too (probes42c: 61.6 ms "of Dynamo's guard checks" where eager's call
    spent 62 ms outside its ops as well). The advice fits the device: CUDA graphs on CUDA,
    the C++ wrapper on the CPU (never reduce-overhead for a CPU-only run)."""
    breaks = sum(1 for c in compiles if c.get("status") == "graph_break")
    advice = (f"remove the {plural(breaks, 'graph break')} so more of the call runs in one "
              "graph; " if breaks else "")
    eager_out = max(0.0, o["call_eager_s"] - o["graphs_eager_s"])
    cids = tuple(g["compile_id"] for g in graphs)
    where = (f"a whole compiled call takes {S.fmt_time(o['call_compiled_s'])}, its graphs "
             f"{S.fmt_time(o['graphs_compiled_s'])} (eager: the call "
             f"{S.fmt_time(o['call_eager_s'])}, its graphs' ops "
             f"{S.fmt_time(o['graphs_eager_s'])})")
    reason = (f"{o['outside_frac']:.0%} of each compiled call of {o['target']} runs outside "
              "its compiled graphs")
    if eager_out and 0.8 <= o["outside_s"] / eager_out <= 1.25:
        # Compiling left it as it was: code around the graphs that eager's call runs too.
        return Limiter(
            "outside_graphs", o["outside_frac"], "measured", reason,
            f"{where}; eager's call spends about as long ({S.fmt_time(eager_out)}) outside "
            f"the same ops, so the {S.fmt_time(o['outside_s'])} is the code around the graphs "
            "(the Python between them, what runs uncompiled), not torch.compile's overhead",
            cids, advice + "profile one call (torch.profiler) to see what runs outside the "
            "graphs: compiling cannot speed up code it does not compile", None)
    # Beyond eager's: the excess is torch.compile's own (guards, wrappers).
    own = o["outside_s"] - eager_out if o["outside_s"] > eager_out else o["outside_s"]
    between = "the Python between graphs (graph breaks) and " if breaks else ""
    cuda = any(str(g.get("device") or "").startswith("cuda") for g in graphs)
    if o.get("cudagraphs_applied"):
        advice += ("CUDA graphs already replay the graphs here, so what remains is Dynamo's "
                   "guard checks and the Python around the graphs")
    elif cuda:
        advice += ("on CUDA, mode='reduce-overhead' replays the graphs as CUDA graphs with one "
                   "launch")
    else:
        advice += ("on the CPU, give each call more work (a bigger batch, or compile the "
                   "whole step) so the fixed cost per call weighs less; "
                   "`torch._inductor.config.cpp_wrapper = True` moves each graph's wrapper "
                   "from Python to C++ (perf's --try measures it)")
    shared = o["outside_s"] - own
    return Limiter(
        "outside_graphs", min(1.0, own / o["call_compiled_s"]), "measured", reason,
        f"{where}; the other {S.fmt_time(own)} is Dynamo's guard checks, "
        f"{between}the compiled wrappers' own work"
        + (f" (beyond the {S.fmt_time(shared)} eager's call spends outside the same ops too)"
           if shared > 0.1 * o["outside_s"] else ""),
        cids, advice, None)


