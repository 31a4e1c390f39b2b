"""The tensor a higher-order op's branch writes, in the user's spelling.

torch.cond, while_loop and scan trace each branch as a graph that may not write its inputs
(GB0041, "Higher order ops do not support input mutation"); torch's debug context names the
placeholder it found written (`l_self_modules_bn_head_modules_0_buffers_num_batches_tracked_`),
which is Dynamo's flattening of `self.bn_head[0].num_batches_tracked`. A BatchNorm in training
mode writes its running statistics at every call: the common way to meet it (probes37d
cond_branch_batchnorm, whose fix said to take a print or a list append out of the branch)."""

from __future__ import annotations

import re

from compdiag.formats.guard_source import module_path

WRITTEN = re.compile(r"Input mutation detected at \[(\w+)\]")
# what a written buffer is, by its name: BatchNorm's (and InstanceNorm's with stats) own
RUNNING_STATS = ("running_mean", "running_var", "num_batches_tracked")
STATS_FIX = ("The branch writes {name}, a BatchNorm's running statistics, which it updates at "
             "every call in training mode: a torch.cond/while_loop/scan branch may not write "
             "its inputs. Run that norm in eval mode inside the branch (`.eval()`, statistics "
             "frozen), build it with `track_running_stats=False`, or compute both branches "
             "and pick with `torch.where` instead of torch.cond.")
WRITE_FIX = ("The branch writes {name}: a torch.cond/while_loop/scan branch may not write its "
             "inputs. Return the new value from the branch and assign it after the call.")


def spelt(placeholder: str) -> str:
    """Dynamo's placeholder name as the user writes the tensor:
    `l_self_modules_head_modules_0_buffers_running_mean_` -> `self.head[0].running_mean`."""
    name = re.sub(r"^[lg]_", "", placeholder).rstrip("_")
    return module_path(".".join(re.split(r"_(?:modules|buffers|parameters)_", name)))


def written(debug_context: str | None) -> str | None:
    """The written tensor torch's debug context names, spelt as the user's; None if none."""
    m = WRITTEN.search(debug_context or "")
    return spelt(m.group(1)) if m else None


def with_written(said: str | None, debug_context: str | None) -> str | None:
    """torch's words for a branch's break, with the tensor it writes."""
    name = written(debug_context)
    return said if name is None or not said else f"{said.rstrip('. ')}, writing `{name}`"


def written_fix(debug_context: str | None) -> str | None:
    """The fix for a branch that writes an input; None when torch named none."""
    name = written(debug_context)
    if name is None:
        return None
    stats = name.rsplit(".", 1)[-1] in RUNNING_STATS
    return (STATS_FIX if stats else WRITE_FIX).format(name=f"`{name}`")
