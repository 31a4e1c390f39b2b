"""Recompile (a global list the compiled function grows, after a graph break): a compiled
evaluation step logs through a `logging.Logger` (a graph break) and then appends its result
to a module-level list. The code after the break guards on the list's length, so each call's
append makes the next call recompile, until the recompile limit. torch ties the guard to the
append's line; the compiled function's "call" of that code is the break, not the user's.

The class of benchmarks/probes26's acc_loss_history_logging (the lead's re-run found the
diagnosis at the logging line, the list called the function's input, the emptiness guard a
second diagnosis, and the logging fix naming a `logger` the program does not have)."""
import logging

import torch

logging.basicConfig(level=logging.WARNING)
metrics_log = logging.getLogger("eval")
scores = []


@torch.compile
def evaluate(pred, target):
    err = (pred - target).abs().mean()
    metrics_log.info("evaluated %d rows", pred.shape[0])
    scores.append(err.detach())  # <- diagnosis
    return err


torch.manual_seed(0)
for _ in range(10):
    evaluate(torch.randn(16, 4), torch.randn(16, 4))
print(len(scores))
