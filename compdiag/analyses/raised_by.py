"""Who raised a failure's exception, from its stored raise site (ingest/parse_failures'
raise_site: the raising frame and its caller).

Two of torch's messages say nothing useful on their own (issue 29 §1, "the line torch points
at"): an exception raised with no words (`raise ValueError("")` in a library helper) is named by
the function that raised it, at its line; and an InternalTorchDynamoError is Dynamo's own
error only when Dynamo's code raised it. Dynamo runs some library functions on the call's real
values while tracing (a process group's lookup, constant helpers); when such a function
rejects them, eager raises the same error at the same call, so it is that call's error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# torch's own machinery: an exception raised here is torch's, never a library function's
# check of the user's values
TORCH_MACHINERY = ("/torch/_dynamo/", "/torch/_inductor/", "/torch/_subclasses/", "/torch/fx/",
                   "/torch/_functorch/", "/torch/_higher_order_ops/", "/torch/_guards.py",
                   "/torch/_prims", "/torch/_refs/", "/torch/_decomp/", "/torch/_ops.py",
                   "/torch/utils/_", "/torch/_library/", "/torch/_export/")
DYNAMO = "/torch/_dynamo/"
_ROOTS = ("/site-packages/", "/dist-packages/")


@dataclass(frozen=True)
class RaisedBy:
    function: str
    where: str              # the file from its package root, and the line: "torch/x.py:12"
    line: str | None        # the raising statement
    called_by_dynamo: bool  # Dynamo's code called it: it ran on the traced call's real values
    machinery: bool         # raised inside torch's compiler machinery

    def words(self) -> str:
        stmt = f": `{self.line}`" if self.line else ""
        return f"raised in `{self.function}()` ({self.where}{stmt})"


def package_path(filename: str) -> str:
    """A library file from its package root (torch/distributed/x.py), else the name as is."""
    name = filename.replace("\\", "/")
    for root in _ROOTS:
        if root in name:
            return name.rsplit(root, 1)[1]
    at = name.rfind("/torch/")
    return name[at + 1:] if at >= 0 else name


def raised_by(site: Any) -> RaisedBy | None:
    """The raise site's function, file and statement; None without a usable frame."""
    frames = [f for f in site or [] if isinstance(f, dict) and f.get("filename")]
    if not frames:
        return None
    inner = frames[-1]
    name = "/" + str(inner["filename"]).replace("\\", "/").lstrip("/")
    caller = "/" + str(frames[-2]["filename"]).replace("\\", "/").lstrip("/") \
        if len(frames) > 1 else ""
    return RaisedBy(function=str(inner.get("name") or "?"),
                    where=f"{package_path(str(inner['filename']))}:{inner.get('lineno')}",
                    line=inner.get("line"), called_by_dynamo=DYNAMO in caller,
                    machinery=any(m in name for m in TORCH_MACHINERY))


def wordless(one: str, exc_type: str | None) -> bool:
    """The one-line summary says nothing but the exception's type ("ValueError", "ValueError:")."""
    bare = one.strip().rstrip(":").strip()
    name = (exc_type or "").rsplit(".", 1)[-1]
    return bool(name) and bare.rsplit(" ", 1)[-1].rsplit(".", 1)[-1] == name and (
        bare == name or bare.endswith(f": {name}") or bare == exc_type)
