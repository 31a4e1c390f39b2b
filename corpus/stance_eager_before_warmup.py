"""Stance (nothing compiled): a batch scorer compiles its model once and, to keep latency
flat, tells torch.compile to run any call that would recompile in eager. The stance is set
before the first call, when nothing is compiled yet, so every call would compile and every
call runs in eager: no compile, no recompile, no warning from torch, and a run that looks
clean. The stance's line is the cause.

The class of benchmarks/probes27's stance_eager_on_recompile (the lead's run: "0 compiles;
no problems found")."""
import torch

scorer = torch.compile(torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(),
                                           torch.nn.Linear(64, 1)))
torch.compiler.set_stance("eager_on_recompile")  # <- diagnosis

with torch.no_grad():
    for n in (4, 4, 9):
        print(n, scorer(torch.randn(n, 32)).shape)
