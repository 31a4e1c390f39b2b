"""np.random inside compiled code draws from torch's generator, not NumPy's.

Dynamo traces NumPy calls as torch ops (torch._numpy), and unless
`torch._dynamo.config.use_numpy_random_stream` is set (False by default: "use numpy's PRNG if
True, pytorch otherwise") a `np.random.*` draw inside a compiled function becomes a torch draw
(a `wrapped_normal` call in Dynamo's graph). `np.random.seed` then does not reach
it: the same seeds give other numbers than eager, silently, and --check-accuracy cannot see it
(it replays the graph with torch's generator on both sides). probes31d noisy_pendulum_seeded:
eager cost 13.046 against compiled 13.439 with every seed set; "no problems found".

The evidence is stored facts only: Dynamo's graph nodes at the user's line (the draw) and the
program's own source (the seed)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.break_before_failure import breaks_at
from compdiag.analyses.locate import source_line

_DRAW = re.compile(r"\b(?:np|numpy)\.random\.(\w+)\(")
_SEED = re.compile(r"\b(?:np|numpy)\.random\.seed\(")

REASON = ("np.random.{fn}() at line {lineno} is traced into a draw from torch's generator: "
          "{seeded}")
SEEDED = "np.random.seed (line {seed}) does not reach it, so the compiled draws differ from eager's"
UNSEEDED = "the compiled code's draws are not NumPy's stream"
EXPLANATION = ("Dynamo traces NumPy calls as torch ops (torch._numpy); with "
               "torch._dynamo.config.use_numpy_random_stream False (the default) a np.random "
               "draw inside a compiled function is drawn from torch's generator, not NumPy's, "
               "so NumPy's seed does not apply and the same seeds give other numbers than "
               "eager, with no error. --check-accuracy cannot see it: it replays the graph "
               "with torch's generator on both sides.")
FIX = ("Set `torch._dynamo.config.use_numpy_random_stream = True` before the first compiled "
       "call (Dynamo then runs the draw in eager with NumPy's generator: eager's numbers, at "
       "the cost of a graph break there), or draw it outside the compiled function and pass "
       "it in.")


def numpy_draw(ctx: Any) -> dict[str, Any] | None:
    """The first np.random draw Dynamo traced into a graph, and the program's np.random.seed
    line if it has one: {filename, lineno, line, fn, seed}."""
    for cid in ctx.compiles:
        for n in ctx.r.dynamo_nodes(ctx.run_id, cid):
            m = _DRAW.search(n.get("line") or "")
            if m is None or m.group(1) == "seed" or m.group(1) not in (n.get("call") or ""):
                continue
            seed = source_line(ctx, cid, _SEED)
            # a graph break at the draw's line (its value read into Python) has the same fix,
            # drawing it outside or with torch: that break leads (probes29a numpy_gain_jitter)
            broke = bool(breaks_at(ctx, n.get("filename"), n.get("lineno")))
            return {"filename": n.get("filename"), "lineno": n.get("lineno"),
                    "line": n.get("line"), "fn": m.group(1), "broke": broke,
                    "seed": seed.lineno if seed is not None else None}
    return None
