"""The tensor behind autograd's "modified by an inplace operation" and the line that wrote it.

torch's error names the saved tensor by type and shape only (`[torch.FloatTensor [32, 128]] is
at version 1; expected version 0`) and surfaces at `loss.backward()`. probes32b
moco_momentum_enqueue: the compiled forward saved the MoCo queue buffer for backward (in eager
a `.clone()` gave the backward its own copy; the compiled graph kept the buffer itself), then
`self.queue[:, ptr:ptr + n] = keys.T` (line 31) wrote it in place before backward ran;
explain said torch's words at line 55 and sent the user to Inductor.

The compiled graphs' guards record every input tensor's sizes by source (guard_values:
`L['self']._buffers['queue'].size()[1] == 128`): the inputs of exactly the error's shape are
the candidates, and the line of the program's source that writes one of them in place
(`NAME[...] = `, `NAME.op_(`, `NAME += `) is where the error comes from."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats.guard_source import in_user_spelling

_VERSION = re.compile(r"modified by an inplace operation: \[[\w.]+ \[([\d, ]*)\]\]")
_SIZE = re.compile(r"^(?P<src>.+)\.size\(\)\[(?P<dim>\d+)\]$")

EXPLANATION = ("The backward needed {name} ({shape}) as the compiled forward saw it, and line "
               "{lineno} wrote it in place before backward ran (autograd counts each tensor's "
               "writes: version {version}). In eager a copy (`.clone()`) can give the backward "
               "its own tensor; compiled code may save the tensor itself instead.")
FIX = ("Do the in-place write to {name} after `backward()` (outside the compiled forward), or "
       "make it out of place so the saved tensor stays as it was (assign a new tensor, e.g. "
       "`{name} = torch.cat(...)` or `{name}.index_copy(...)` without the `_`), or take the "
       "value the forward uses as an explicit copy passed in as an argument.")


def written_saved_tensor(ctx: Any, cids: list[str], message: str | None,
                         files: list[str | None]) -> dict[str, Any] | None:
    """{name, shape, version, frame} for a "modified by an inplace operation" error: the
    compiled graphs' input of that shape that a line of `files` writes in place; None where
    the error is another, no input has the shape, or no single line writes one."""
    m = _VERSION.search(message or "")
    if m is None:
        return None
    shape = [int(x) for x in m.group(1).replace(" ", "").split(",") if x]
    names = _inputs_of_shape(ctx, cids, shape)
    found = []
    for name in names:
        pattern = re.compile(rf"(?<![\w.]){re.escape(name)}\s*(?:\[[^\]]*\]\s*=(?!=)|\.\w+_\(|"
                             rf"[-+*/]=)")
        for path in dict.fromkeys(files):
            for i, text in enumerate(ctx.code_lines(path) or [], 1):
                if pattern.search(text):
                    found.append((name, ctx.frame(path, i, evidence="source")))
    if len({(f.filename, f.lineno) for _, f in found}) != 1:
        return None
    name, frame = found[0]
    version = re.search(r"is at version (\d+); expected version (\d+)", message or "")
    return {"name": name, "shape": f"[{', '.join(map(str, shape))}]", "frame": frame,
            "version": f"{version.group(2)} -> {version.group(1)}" if version else "changed"}


def _inputs_of_shape(ctx: Any, cids: list[str], shape: list[int]) -> list[str]:
    """The user spellings of the compiled graphs' tensor inputs whose sizes are `shape`."""
    sizes: dict[str, dict[int, str | None]] = {}
    for cid in cids:
        for guarded, value in ctx.r.guard_values(ctx.run_id, cid).items():
            m = _SIZE.match(guarded)
            if m:
                sizes.setdefault(m.group("src"), {})[int(m.group("dim"))] = value
    want = {i: str(n) for i, n in enumerate(shape)}
    return list(dict.fromkeys(in_user_spelling(src) for src, dims in sizes.items()
                              if {i: str(v) for i, v in dims.items()} == want))
