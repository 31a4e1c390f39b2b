"""The full checker beside the plain repro (`repro_check.py`): plain python, torch only.

It compiles the minimal graph with Inductor (torch._inductor.compile_fx.compile_fx, the call
Dynamo makes with a captured graph; torch.compile with backend "eager" for a failure Dynamo
raised) under the config patches the failure needs and judges the outcome with the
minifier's own oracle (its source is copied in), so it judges exactly as the minifier did:
exit 1 while the bug is present, 0 once it is fixed, 2 when it fails in another way, 3 when
eager itself fails; `pytest repro_check.py` runs the same check. The isolated queries
(crashes, `--isolate`) run this script. Small inputs are written inline; large ones as raw
bytes beside the script (no pickle)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import torch
import torch.fx

from compdiag.formats import signature, tolerances
from compdiag.formats.failure_graph import tensor_bytes
from compdiag.formats.op_schema import declared_write_names
from compdiag.minify import oracle
from compdiag.minify.graph import INLINE_NUMEL
from compdiag.minify.result import Result

_HEADER = '''#!/usr/bin/env python3
"""The full check of a minimal repro written by `compdiag minify` (the plain one: {plain}).

Failure: {kind} ({stage}) - {exc_type}:
{message}
Captured with torch {torch_version} (run {run_id}, graph {compile_id}); {nodes} of {initial}
nodes left, {one_min}.

    python {name}        exit 1 while the bug is present, 0 once it is fixed
                         (2: it fails differently, 3: eager itself fails)
    pytest {name}        the same check as a test (test_repro)

Needs only torch.{files_note}
"""
import os
import sys

import torch
import torch.fx
import torch._inductor.config

TORCH_VERSION = {torch_version!r}   # the version the failure was captured with
KIND = {kind!r}
STAGE = {stage!r}
EXPECTED = {expected!r}
GRAD_ENABLED = {grad!r}
TOL = {tol!r}              # None: torch._dynamo.utils.same's per-dtype tolerance
DYNAMIC = {dynamic!r}          # captured with symbolic sizes: compiled with dynamic=True
GRADS = {grads!r}          # positions of inputs whose gradients are compared too
# Inductor config the failure needs (patched only while compiling):
CONFIG = {config}
HERE = os.path.dirname(os.path.abspath(__file__))
nan, inf = float("nan"), float("inf")


def load(path, dtype, shape, stride=None):
    """A tensor from raw bytes (no pickle)."""
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0:
        t = torch.empty(shape, dtype=dtype)
    else:
        with open(os.path.join(HERE, path), "rb") as f:
            t = torch.frombuffer(bytearray(f.read()), dtype=dtype).reshape(shape)
    return strided(t, stride)


def strided(t, stride):
    if stride is None or list(t.stride()) == list(stride):
        return t
    return torch.empty_strided(t.shape, stride, dtype=t.dtype).copy_(t)

'''

_FOOTER = '''

def make_inputs():
    return [
{inputs}
    ]


def check():
    """(outcome, detail): outcome is "pass", "fail" or "invalid" (see run_case)."""
    gm = torch.fx.symbolic_trace(Repro())
    run = run_dynamo_case if STAGE == "dynamo" else run_case
    more = {{"dynamic": True}} if DYNAMIC and run is run_case else {{}}
    if GRADS:
        more["grads"] = GRADS
    return run(gm, make_inputs(), KIND, CONFIG, grad_enabled=GRAD_ENABLED, tol=TOL, **more)


def main():
    if torch.__version__ != TORCH_VERSION:
        print(f"note: captured with torch {{TORCH_VERSION}}, running {{torch.__version__}}")
    try:
        outcome, detail = check()
    except Exception as exc:  # noqa: BLE001 - a broken repro is not "the bug is present"
        print(f"the repro itself failed: {{type(exc).__name__}}: {{exc}}")
        return 2
    if outcome == "pass":
        print("fixed: compiled graph works and matches eager")
        return 0
    if outcome == "invalid":
        print(f"eager itself fails: {{detail}}")
        return 3
    if tuple(detail) == tuple(EXPECTED):
        print(f"bug present: {{detail[0]}}: {{detail[1]}}")
        return 1
    print(f"fails differently: {{detail}} (expected {{EXPECTED}})")
    return 2


def test_repro():
    outcome, detail = check()
    assert outcome == "pass", f"{{outcome}}: {{detail}}"


if __name__ == "__main__":
    sys.exit(main())
'''


_BEGIN, _END = "# --- compdiag oracle begin ---", "# --- compdiag oracle end ---"
# The repro's judge, in the order its parts need each other: what "the same failure" means,
# the tolerances, and the test itself.
ORACLE_MODULES = (signature, tolerances, oracle)


def oracle_source() -> str:
    """The marked blocks of ORACLE_MODULES, one after another, as one marked block."""
    parts = []
    for module in ORACLE_MODULES:
        text = Path(module.__file__).read_text()
        parts.append(text[text.index(_BEGIN) + len(_BEGIN):text.index(_END)].strip("\n"))
    return _BEGIN + "\n" + "\n\n\n".join(parts) + "\n" + _END


def float_literal(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def list_literal(values: list[Any]) -> str:
    parts = [float_literal(v) if isinstance(v, float) else repr(v) for v in values]
    lines, line = [], ""
    for p in parts:
        if len(line) + len(p) > 80:
            lines.append(line)
            line = ""
        line += p + ", "
    lines.append(line)
    return "[" + "\n            ".join(ln.rstrip() for ln in lines).rstrip(", ") + "]"


def tensor_expr(t: torch.Tensor, name: str, files: dict[str, bytes], file_dir: str,
                zero: bool = False) -> str:
    dtype = str(t.dtype)
    shape = list(t.shape)
    stride = list(t.stride())
    contiguous = t.is_contiguous()
    if zero:
        expr = f"torch.zeros({shape}, dtype={dtype})"
    elif t.numel() <= INLINE_NUMEL and not t.is_complex():
        flat = t.detach().cpu().contiguous().reshape(-1).tolist()
        expr = f"torch.tensor({list_literal(flat)}, dtype={dtype}).reshape({shape})"
    else:
        rel = f"{file_dir}/{name}.bin"
        files[rel] = tensor_bytes(t)
        expr = f"load({rel!r}, {dtype}, {shape}" + ("" if contiguous else f", {stride}") + ")"
        contiguous = True
    if not contiguous:
        expr = f"strided({expr}, {stride})"
    if t.requires_grad:
        expr += ".requires_grad_()"
    if t.device.type != "cpu":
        expr = f"{expr}.to({str(t.device)!r})"
    return expr


def checker_path(repro: Path) -> Path:
    """repro.py -> repro_check.py (the names `compdiag report` bundles)."""
    return repro.with_name(repro.stem + "_check.py")


def render(result: Result, path: Path, plain: str = "") -> tuple[str, dict[str, bytes]]:
    """(the script's text, {relative file: raw bytes}) for a minification result."""
    built = result.built
    doc = result.problem.doc
    file_dir = path.stem + "_inputs"
    files: dict[str, bytes] = {}
    gm = built.gm
    buffers = []
    for name, t in list(gm.named_parameters()) + list(gm.named_buffers()):
        buffers.append((name, tensor_expr(t.detach(), name.replace(".", "_"), files, file_dir),
                        isinstance(t, torch.nn.Parameter), t.requires_grad))
    code = gm.code
    body = "\n".join("    " + ln if ln.strip() else "" for ln in code.strip("\n").splitlines())
    cls = ["class Repro(torch.nn.Module):", "    def __init__(self):",
           "        super().__init__()"]
    for name, expr, is_param, rg in buffers:
        *owners, leaf = name.split(".")
        target = "self"
        for o in owners:
            cls.append(f"        if not hasattr({target}, {o!r}):")
            cls.append(f"            {target}.add_module({o!r}, torch.nn.Module())")
            target = f"{target}.{o}"
        if is_param:
            cls.append(f"        {target}.register_parameter({leaf!r}, torch.nn.Parameter("
                       f"{expr}, requires_grad={rg!r}))")
        else:
            cls.append(f"        {target}.register_buffer({leaf!r}, {expr})")
    cls.append("")
    cls.append(body)
    imports = _imports(gm)
    inputs = []
    for i, (name, value) in enumerate(zip(built.input_names, built.inputs)):
        if isinstance(value, torch.Tensor):
            expr = tensor_expr(value, f"arg{i}_{name}", files, file_dir,
                               zero=name in result.candidate.zeroed)
        else:
            expr = float_literal(value) if isinstance(value, float) else repr(value)
        inputs.append(f"        {expr},  # {name}")
    config_lines = "{\n" + "".join(f"    {k!r}: {v!r},\n" for k, v in built.config.items()) + "}"
    header = _HEADER.format(
        kind=doc["kind"], stage=doc.get("stage"), exc_type=doc.get("exc_type"),
        message=message_block(doc.get("message", "")), plain=plain or "none",
        torch_version=doc.get("torch_version", torch.__version__), run_id=result.problem.run_id,
        compile_id=result.problem.compile_id, nodes=len(result.candidate.kept),
        initial=result.initial_nodes,
        one_min="1-minimal (no single node can be cut)" if result.one_minimal
        else "NOT verified 1-minimal",
        name=path.name, files_note=(f" Large inputs are raw bytes in {file_dir}/." if files
                                    else ""),
        expected=tuple(result.problem.target), grad=bool(doc.get("grad_enabled")),
        dynamic=result.problem.dynamic_shapes, grads=grad_positions(result),
        tol=doc.get("tol"), config=config_lines)
    ops = custom_op_block(doc)
    text = (header + imports + "\n" + oracle_source() + "\n\n\n" + (ops and ops + "\n\n\n")
            + "\n".join(cls) + "\n" + _FOOTER.format(inputs="\n".join(inputs)))
    return text, files


def grad_positions(result: Result) -> list[int]:
    """The repro's input positions whose gradients are compared (Problem.grad_inputs)."""
    return result.problem.grad_positions(result.built.input_names)


def _imports(gm: torch.fx.GraphModule) -> str:
    """Imports the forward code's globals need (FX writes `operator.mul`, `math.sqrt`, ...)."""
    py = gm.graph.python_code(root_module="self")
    lines = []
    for name, obj in sorted(py.globals.items()):
        if name in ("torch", "inf", "nan", "device", "fx_pytree", "pytree", "NoneType") \
                or name.startswith("_"):
            continue
        mod = getattr(obj, "__name__", None) if hasattr(obj, "__spec__") else None
        if mod and mod == name:
            lines.append(f"import {name}")
    extra = "import math\nimport operator\n"
    return extra + "".join(ln + "\n" for ln in lines if ln not in ("import math",
                                                                     "import operator"))


def message_block(message: str, lines: int = 10, width: int = 92) -> str:
    """torch's own message, as it was (not normalised), indented for a docstring: wrapped at
    `width` (a line over four times that cut), its first `lines` lines."""
    import textwrap

    out: list[str] = []
    for ln in str(message).strip("\n").splitlines():
        ln = ln.rstrip().replace("\\", "\\\\").replace('"""', "'''")
        if len(ln) > 4 * width:  # a command line or a dump: its start says what it is
            out.append(ln[:width] + " ...")
        else:
            out += textwrap.wrap(ln, width, subsequent_indent="  ") or [""]
    if len(out) > lines:
        out = out[:lines - 1] + ["..."]
    return "\n".join("    " + ln if ln else "" for ln in out) if out else "    (no message)"


def custom_op_block(doc: dict[str, Any]) -> str:
    """The user's custom ops the graph calls, as their own definitions (the source captured
    with the failure), or, when that is gone, an op with the recorded schema and no fake
    implementation (the failure minify could replay)."""
    parts = []
    for op in doc.get("custom_ops") or []:
        if op.get("source"):
            parts.append(op["source"].strip("\n"))
        else:
            name = op["qualname"].partition("::")[2]
            sig = op["schema"][op["schema"].index("("):]
            mutated = tuple(declared_write_names(torch._C.parse_schema(op["schema"])))
            parts.append(f"def {name}(*args):  # the source of {op['qualname']} was not kept\n"
                         f"    raise NotImplementedError\n\n\n"
                         f"torch.library.custom_op({op['qualname']!r}, {name}, "
                         f"mutates_args={mutated!r}, schema={sig!r})")
    return "\n\n\n".join(parts)


def write(result: Result, path: Path, plain: str = "") -> list[Path]:
    """Write the checker (and its raw input files); returns every path written."""
    text, files = render(result, path, plain)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = [path]
    for rel, data in files.items():
        f = path.parent / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(data)
        written.append(f)
    path.write_text(text)
    return written
