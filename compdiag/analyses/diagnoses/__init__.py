"""The built-in diagnosis kinds, one module each: where a kind is diagnosed, declared (its
KindSpec: title, words, colour, cost classes, tie order, details), fixed and costed for
`compdiag perf`. A new kind is one new module here plus its name in BUILTIN, or a module in a
plugin package (entry-point group `compdiag.diagnoses`, see analyses/registry.py).

    graph_breaks.py   graph_break   Dynamo split the graph or gave up on a function
    recompiles.py     recompile     a guard failed (and the recompile limit)
    failures.py       failure       an exception escaped a compile stage or compiled code
    program.py        program       the exception that ended the program (outside compiled
                                    code; through it, a runtime failure no failure row has)
    accuracy.py       accuracy      compiled outputs differ from eager; bug injectors
    cudagraphs.py     cudagraph     CUDA graphs skipped under reduce-overhead
    fusion.py         fusion        the scheduler refused a fusion worth having
    perf_hints.py     perf          Inductor's perf hints (fallback kernels, slow patterns)
    divergence.py     divergence    ranks of one job compiled differently (job-level)
    cache.py          cache         a compile cache bypassed, a miss explained by its key
    ddp.py            ddp           DistributedDataParallel's doing: DDPOptimizer's split,
                                    a failure inside it, DDP's own forward under compile;
                                    breaks at FSDP2's hooks
    unguarded.py      unguarded     a change Dynamo does not guard on, made after the
                                    compile (a hook added to a compiled module)
    stance.py         stance        set_stance kept anything from compiling
    allow_in_graph.py allow_in_graph a function marked allow_in_graph that could not run
                                    untraced in the graph (its breaks and recompiles)
    state_dict.py     state_dict    a checkpoint loaded into torch.compile's wrapper, whose
                                    keys carry `_orig_mod.` (nothing loaded, or an error)
    memoised.py       memoised      an lru_cache'd helper whose random draw compiled code
                                    makes again at each call (Dynamo drops the memo)
    aliasing.py       aliasing      a compiled call's inputs overlap in memory and the graph
                                    mutates one: the cause of its failure or mismatch

Kinds never import each other: what two kinds share is in analyses/ (fixes.py, rules.py,
context.py)."""

from __future__ import annotations

import importlib
from types import ModuleType

# The modules registered, in this order, before any plugin's.
BUILTIN = ("failures", "recompiles", "graph_breaks", "accuracy", "cudagraphs", "fusion",
           "perf_hints", "program", "divergence", "cache", "ddp", "unguarded", "stance",
           "allow_in_graph", "state_dict", "memoised", "aliasing")


def builtin_modules() -> list[ModuleType]:
    return [importlib.import_module(f"{__name__}.{name}") for name in BUILTIN]
