"""The repro a minification ends with, `repro.py`: short and plain, for a maintainer to read.

The minimal graph as a plain function, its inputs inline (or, when large, slices of one raw
bytes file beside it, `repro.bin`: never a pickle), the Inductor config the failure needs, and
one check that raises torch's real error (`torch.compile(f)(...)`; backend "eager" for a
failure Dynamo raised) or asserts closeness with the tolerance the minifier judged by
(`torch.testing.assert_close`). torch's own message is in its docstring. Plain `python
repro.py` fails while the bug is present and exits 0 once it is fixed.

Beside it, `repro_check.py` (minify/checker.py) is the full check: the minifier's own oracle,
its exit codes and "fails differently". `write` writes both; their names are stable
(`compdiag report` bundles them)."""

from __future__ import annotations

import keyword
import re
import struct
from pathlib import Path
from typing import Any

import torch
import torch.fx

from compdiag.formats.failure_graph import tensor_bytes
from compdiag.formats.tolerances import default_tol
from compdiag.minify import checker
from compdiag.minify.graph import INLINE_NUMEL
from compdiag.minify.result import Result

# FX's "x = None" lines free values early; a reader does not need them.
_FREES = re.compile(r";\s+(?:\w+ = )+None\s*$")
_RESERVED = {"torch", "operator", "math", "os", "raw", "f", "expected"}


def write(result: Result, path: Path) -> list[Path]:
    """Write repro.py at `path` and repro_check.py beside it (and their raw input files);
    returns every path written, the repro first."""
    check = checker.checker_path(path)
    text, raw = render(result, path, check.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = [path]
    if raw:
        bin_path = path.with_suffix(".bin")
        bin_path.write_bytes(raw)
        written.append(bin_path)
    path.write_text(text)
    return written + checker.write(result, check, path.name)


def render(result: Result, path: Path, check_name: str) -> tuple[str, bytes]:
    """(repro.py's text, the bytes of its raw input file: empty when every input is inline)."""
    built, doc = result.built, result.problem.doc
    dynamo = doc.get("stage") == "dynamo"
    raw = bytearray()
    rename = _names(built.input_names)

    def tensor(t: torch.Tensor, zero: bool = False) -> str:
        return _tensor(t, raw, path.with_suffix(".bin").name, zero)

    consts = []
    for target, t in list(built.gm.named_parameters()) + list(built.gm.named_buffers()):
        consts.append((target, "c_" + re.sub(r"\W", "_", target), tensor(t.detach())))
    body = _body(built.gm, rename, {t: n for t, n, _ in consts})
    args = [rename[n] for n in built.input_names]
    inputs = []
    for name, value in zip(built.input_names, built.inputs):
        expr = (tensor(value, zero=name in result.candidate.zeroed)
                if isinstance(value, torch.Tensor) else checker.float_literal(value)
                if isinstance(value, float) else repr(value))
        inputs.append(f"{rename[name]} = {expr}")

    lines = [_docstring(result, check_name)] + (["import os"] if raw else []) + ["import torch"]
    lines += sorted(_imports(built.gm))
    if built.config:
        lines.append("import torch._inductor.config")
    if raw:
        lines += ["",
                  'raw = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '
                  f'{path.with_suffix(".bin").name!r}), "rb").read()']
    if built.config:
        lines.append("")
        lines += [f"torch._inductor.config.{k} = {v!r}" for k, v in built.config.items()]
    if not doc.get("grad_enabled") and any(
            isinstance(v, torch.Tensor) and v.requires_grad for v in built.inputs):
        lines += ["torch.set_grad_enabled(False)"]
    ops = checker.custom_op_block(doc)
    if ops:
        lines += ["", "", ops]
    if consts:
        lines += [""] + [f"{name} = {expr}" for _, name, expr in consts]
    if any(re.search(r"\b(nan|inf)\b", ln) for ln in inputs + body + [c[2] for c in consts]):
        lines += ['nan, inf = float("nan"), float("inf")']
    lines += ["", "", f"def f({', '.join(args)}):"] + body + ["", ""] + inputs
    call = ", ".join(args)
    # sizes captured symbolic come back symbolic (minify/graph.py's Problem.dynamic_shapes)
    compiled = "f, dynamic=True" if result.problem.dynamic_shapes else "f"
    if doc["kind"] == "accuracy":
        tol = doc.get("tol")
        if tol is None:
            tol = max((default_tol(v.dtype) for v in _outputs(result)), default=1e-4)
        mutates = any(n.op == "call_method" and str(n.target).endswith("_")
                      for n in built.gm.graph.nodes)
        eager = (", ".join(f"{a}.clone()" if isinstance(v, torch.Tensor) else a
                           for a, v in zip(args, built.inputs)) if mutates else call)
        grads = [args[i] for i in checker.grad_positions(result)]
        if grads:   # the gradients too (oracle.run_case's `grads`), from gradient ones
            wrt = ", ".join(grads)
            lines += [
                "", "",
                f"def with_grads(fn, {call}):",
                f"    {wrt}, = [t.detach().clone().requires_grad_(True) for t in ({wrt},)]",
                f"    out = fn({call})",
                "    outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,))",
                "            if isinstance(o, torch.Tensor) and o.requires_grad]",
                f"    return out, torch.autograd.grad(outs, [{wrt}], "
                "[torch.ones_like(o) for o in outs], allow_unused=True)",
                "", "",
                f"expected = with_grads(f, {call})",
                f"torch.testing.assert_close(with_grads(torch.compile({compiled}), {call}), "
                "expected, "
                f"rtol={tol!r}, atol={tol!r}, equal_nan=True)"]
        else:
            lines += [f"expected = f({eager})",
                      f"torch.testing.assert_close(torch.compile({compiled})({call}), "
                      f"expected, rtol={tol!r}, atol={tol!r}, equal_nan=True)"]
    else:
        backend = '(f, backend="eager")' if dynamo else f"({compiled})"
        lines.append(f"torch.compile{backend}({call})")
    return "\n".join(lines) + "\n", bytes(raw)


def _docstring(result: Result, check_name: str) -> str:
    doc = result.problem.doc
    what = ("compdiag's accuracy check at capture, on the whole graph (same(), fp64 reference)"
            if doc["kind"] == "accuracy" else "torch's error")
    nodes = f"{len(result.candidate.kept)} of {result.initial_nodes} nodes"
    minimal = "1-minimal" if result.one_minimal else "not verified 1-minimal"
    return (f'"""{doc["kind"]} ({doc.get("stage")}) minified by compdiag: {nodes}, {minimal}; '
            f'torch {doc.get("torch_version", torch.__version__)}.\n\n'
            f"{what}:\n{checker.message_block(doc.get('message', ''))}\n\n"
            f"Fails while the bug is present, exits 0 once fixed; {check_name} is the full "
            f'check.\n"""')


def _names(input_names: list[str]) -> dict[str, str]:
    out = {}
    for n in input_names:
        name = re.sub(r"\W", "_", n)
        if name in _RESERVED or keyword.iskeyword(name) or not name.isidentifier():
            name = f"in_{name}"
        out[n] = name
    return out


def _body(gm: torch.fx.GraphModule, rename: dict[str, str], consts: dict[str, str]
          ) -> list[str]:
    """The graph's forward as the body of a plain function: no `self`, no frees."""
    code = gm.code.strip("\n").splitlines()
    start = next(i for i, ln in enumerate(code) if ln.startswith("def forward"))
    out = []
    for ln in code[start + 1:]:
        if not ln.strip():
            continue
        ln = _FREES.sub("", ln.rstrip())
        for target, name in sorted(consts.items(), key=lambda kv: -len(kv[0])):
            ln = ln.replace(f"self.{target}", name)
        for old, new in rename.items():
            if old != new:
                ln = re.sub(rf"\b{re.escape(old)}\b", new, ln)
        out.append(ln)
    return out


def _imports(gm: torch.fx.GraphModule) -> set[str]:
    """`import operator` / `import math` where FX writes `operator.mul`, `math.sqrt`, ...,
    and torch's `device` where it writes `device(type='cpu')` (probes32d lstm_allow_rnn:
    the repro raised NameError for it, a failure no torch fix would remove)."""
    code = gm.code
    return {f"import {m}" for m in ("operator", "math") if re.search(rf"\b{m}\.", code)} | (
        {"from torch import device"} if re.search(r"\bdevice\(", code) else set())


def _outputs(result: Result) -> list[torch.Tensor]:
    values = result.model.values
    return [values[o] for o in result.candidate.outputs
            if isinstance(values.get(o), torch.Tensor) and values[o].is_floating_point()]


class _Float(float):
    """A float that prints as its shortest decimal that reads back to the same value in the
    tensor's dtype (float32's 0.4683 rather than 0.46829998493194580)."""

    text: str

    def __repr__(self) -> str:
        return self.text


_STRUCT = {torch.float32: "f", torch.float16: "e"}


def _short(v: Any, dtype: torch.dtype) -> Any:
    code = _STRUCT.get(dtype)
    if code is None or not isinstance(v, float) or v != v or v in (float("inf"), float("-inf")):
        return v
    for digits in range(1, 18):
        text = f"{v:.{digits}g}"
        if struct.unpack(code, struct.pack(code, float(text)))[0] == v:
            out = _Float(v)
            out.text = text if any(c in text for c in ".en") else text + ".0"
            return out
    return v


def _nested(flat: list[Any], shape: list[int]) -> str:
    if len(shape) == 1:
        return "[" + ", ".join(map(repr, flat)) + "]"
    step = len(flat) // shape[0] if shape[0] else 0
    return "[" + ", ".join(_nested(flat[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


def _tensor(t: torch.Tensor, raw: bytearray, bin_name: str, zero: bool) -> str:
    """A tensor as an expression: inline when small, else a slice of the raw file."""
    dtype, shape = str(t.dtype), list(t.shape)
    if zero:
        expr = f"torch.zeros({shape}, dtype={dtype})"
    elif t.numel() <= INLINE_NUMEL and not t.is_complex():
        flat = [_short(v, t.dtype) for v in t.detach().cpu().contiguous().reshape(-1).tolist()]
        literal = checker.list_literal(flat).replace("\n            ", "\n    ")
        reshape = "" if len(shape) == 1 else f".reshape({shape})"
        if len(shape) > 1 and t.numel() <= 8:   # [[0.4683]] reads better than a reshape
            literal, reshape = _nested(flat, shape), ""
        # torch.tensor's own dtype for Python floats, ints and bools needs no dtype=
        default = t.dtype in (torch.float32, torch.int64, torch.bool) and t.numel() > 0
        kw = "" if default else f", dtype={dtype}"
        expr = (f"torch.tensor({literal}{kw}){reshape}" if shape
                else f"torch.tensor({flat[0]!r}{kw})")
    else:
        data = tensor_bytes(t)
        start = len(raw)
        raw.extend(data)
        expr = (f"torch.frombuffer(bytearray(raw[{start}:{start + len(data)}]), "
                f"dtype={dtype}).reshape({shape})" if data
                else f"torch.empty({shape}, dtype={dtype})")
    if not t.is_contiguous() and not zero:
        expr = f"torch.empty_strided({shape}, {list(t.stride())}, dtype={dtype}).copy_({expr})"
    if t.requires_grad:
        expr += ".requires_grad_()"
    if t.device.type != "cpu":
        expr += f".to({str(t.device)!r})"
    return expr
