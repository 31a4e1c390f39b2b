"""A size guard torch's own compiler code added: `(x.size()[2] // 4) == 8  #
(_inductor/lowering.py:5983 in _adaptive_avg_pool2d)`. Inductor's lowering (or a
decomposition, a meta function) of an op needs that size as a constant, so every new size
compiles again, dynamic=True or not; the program has no branch on it (probes46b
multires_adaptive_pool_dynamic: "forward() branches in Python on (x.size()[2] // 4)" at the
call, and `torch.where` advice for a program with no `if`). Said at the op's line, from the
compile's stored graph nodes, with what the program can change there."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterable

from compdiag.analyses.diagnosis import UserFrame

# torch's own file and function in a guard's origin comment
_ORIGIN = re.compile(r"#\s*\((?P<file>(?:_inductor|_decomp|_refs|_prims)/[\w/]+\.py|"
                     r"_meta_registrations\.py):(?P<line>\d+) in (?P<fn>\w+)\)")
_WHAT = (("_inductor/lowering.py", "Inductor's lowering"), ("_inductor/kernel/", "Inductor's kernel"),
         ("_inductor/", "Inductor"), ("_decomp/", "the decomposition"),
         ("_refs/", "torch's reference implementation"), ("_prims/", "torch's primitive"),
         ("_meta_registrations.py", "the meta function"))
FIX = ("Give {op} inputs of a few fixed sizes (resize or pad to buckets: each compiles once), "
       "or run it outside compiled code (a small helper decorated `@torch.compiler.disable`), "
       "or write it without the size-dependent form{example}. Marking the size dynamic does "
       "not help: torch's code makes it a constant.")
# a pooling op to a fixed output size has a size-independent spelling for the global case
POOL_EXAMPLE = " (a global average pool is `x.mean((-2, -1), keepdim=True)`)"


@dataclass(frozen=True)
class Specialised:
    fn: str              # torch's function that added the guard
    where: str           # torch/<file>:<line>
    what: str            # "Inductor's lowering", ...
    frame: UserFrame | None   # the op's user line, when the compile's nodes name it

    @property
    def clause(self) -> str:
        return f", a size {self.what} of {self.op} needs as a constant ({self.where})"

    def said_in(self, reason: str) -> str:
        """`reason` with this origin: in place of the general words for a size torch's code
        specialised, else at its end."""
        general = "torch's own code specialises it to a constant, no line of yours"
        if general in reason:
            return reason.replace(general, f"{self.what} of {self.op} ({self.where}) "
                                           "specialises it to a constant")
        return reason + self.clause

    @property
    def op(self) -> str:
        return self.fn.lstrip("_")

    @property
    def explanation(self) -> str:
        return (f"torch's own code added this guard, not a branch of the program: {self.what} "
                f"of {self.op} (`{self.fn}`, {self.where}) turns the size into a constant, so "
                "each new value compiles again, with dynamic=True too.")

    @property
    def fix(self) -> str:
        return FIX.format(op=f"`{self.op}`", example=POOL_EXAMPLE if "pool" in self.op else "")


def torch_specialised(ctx: Any, events: Iterable[dict[str, Any]],
                      spec: dict[str, Any] | None = None) -> Specialised | None:
    """The torch function whose code added the guards of `events` (the first that names one
    in its origin comment), else the one that specialised the size (`spec`: the
    specialisation's stored `torch_frame`, ingest/specializer.py), with the user line of its
    op in those compiles' graphs; None when torch names none."""
    events = list(events)
    m = next((m for e in events if (m := _ORIGIN.search(e.get("failed_guard") or ""))), None)
    by = (spec or {}).get("torch_frame")
    if isinstance(by, str):
        try:
            by = json.loads(by)
        except ValueError:
            by = None
    if m is not None:
        fn, path, line = m.group("fn"), m.group("file"), m.group("line")
    elif isinstance(by, dict) and by.get("name") and by.get("file"):
        fn, path, line = str(by["name"]), str(by["file"]).removeprefix("torch/"), by.get("lineno")
    else:
        return None
    what = next((w for k, w in _WHAT if path.startswith(k) or k in path), "torch's code")
    frame = None
    for cid in dict.fromkeys(e["compile_id"] for e in events):
        node = next((n for n in ctx.graph_nodes(cid) if n.get("filename") and n.get("lineno")
                     and str(n.get("op") or "").lstrip("_") == fn.lstrip("_")), None)
        if node is not None:
            frame = UserFrame(node["filename"], int(node["lineno"]), node.get("line"), "fx_node")
            break
    return Specialised(fn, f"torch/{path}:{line}", what, frame)
