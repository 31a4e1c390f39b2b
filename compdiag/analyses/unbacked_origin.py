"""The value behind a data-dependent expression torch could not decide on.

"Could not guard on data-dependent expression Eq(u5, 0)" names the op that needed the value
(torch's `Caused by:` line), not where the value came from. Torch records where it made each
unbacked symbol (ingest/unbacked_symbols.py): a value read out of a tensor (`.item()`,
`int(t[0])`, `.tolist()`: the `local_scalar_dense` op; `nonzero()` and the other ops whose
output size is data) or a size made from such a value (a slice whose bounds are one). The
origin is the read that made a symbol of the expression, else the compile's first read (a
slice bound made u5 from u0); none where the compile read nothing (issue 29 §2, the cause
above its consequence; probes30a static_cache_fullgraph). And a compiler stage failing on
such a size where torch names no guard: the op and the sizes said (`data_dependent`)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats.user_code import is_user_file

# torch's words for a guard it could not evaluate on an unbacked symbol
DATA_DEPENDENT = ("Could not guard on data-dependent expression",
                  "Could not extract specialized integer from data-dependent expression")
# the fake-tensor ops that read data: a tensor's value, or an output size that is data
READ_OPS = ("local_scalar_dense", "nonzero", "masked_select", "unique", "repeat_interleave",
            "bincount", "item", "index_tensor", "index.Tensor")
# what a size-producing op is in the user's words (`index_tensor`: `x[mask]`, probes37b
# vad_voiced_count_fullgraph's `frames[energy > THR]`, then `if voiced.shape[0] < 4:`)
SIZE_WORDS = (("index_tensor", "`x[mask]` with a boolean mask"),
              ("index.Tensor", "`x[mask]` with a boolean mask"))
_SYMBOL = re.compile(r"\bu\d+\b")

ORIGIN_EXPLANATION = (
    "{symbol} is {what} at line {lineno} (`{line}`): while tracing, Dynamo does not know its "
    "value (an unbacked symbol), and the op at line {needed} that must decide on it (a size, "
    "a slice bound, a branch) cannot.")
# probes30a static_cache_fullgraph: the slice-bound version failed; static_cache_ok's
# index_copy_ at tensor positions and an int passed in both compile.
ORIGIN_FIX = (
    "{check}Keep the number out of Python: compute it before the compiled call and pass it in "
    "as an int (a changing int becomes dynamic after one recompile), or keep it a tensor and "
    "index with it (`index_copy_`/`index_select` at a tensor position, a mask with "
    "`torch.where`) instead of slicing with it.")

# a size made from the data that a later line decides on (a row count after a boolean
# mask): no number to pass in instead; keep the shape fixed or let the graph break
SIZE_ORIGIN_FIX = (
    "{check}Decide without {symbol}: keep the shape fixed (weight or fill by the mask with "
    "`torch.where` instead of selecting rows, then reduce with the mask's count), or choose "
    "between both results with `torch.where`/`torch.cond` on a tensor condition{fullgraph}.")
# (only where Dynamo failed on it: a compiler stage's failure has no graph break to accept)
FULLGRAPH_OFF = ", or leave `fullgraph=True` off so Dynamo breaks the graph at line {needed}"
# the branch torch could not decide is in library code the program compiled (probes37a
# ema_averaged_model_fullgraph: swa_utils' `if copy_param:` under fullgraph=True)
LIBRARY_BRANCH_FIX = (
    "The decision on a value from the data is in {name}()'s own code (`{line}`, {file}:"
    "{lineno}), which you do not change: leave `fullgraph=True` off so Dynamo breaks the "
    "graph there and runs that part in eager, or call that code outside the compiled "
    "function.")

# the read and the op that must decide on it are one line (probes33a expert_choice_fullgraph:
# `(~covered).nonzero().squeeze(-1).tolist()` under fullgraph=True, "Eq(u0, 0)", whose fix
# said to check the line in eager, where it runs)
SAME_LINE_EXPLANATION = (
    "{symbol} is {what} at line {lineno} (`{line}`), known only when the data is: the rest of the line needs to decide on it (is it 0? a `.tolist()`, a "
    "Python loop or a check over the result), which Dynamo cannot while tracing. Without "
    "fullgraph=True it breaks the graph there and runs that part in eager; with it, it fails.")
SAME_LINE_FIX = (
    "Return the tensor and do what needs {symbol} (`.tolist()`, the Python loop, the check) "
    "outside the compiled function, or keep the shape fixed (a boolean mask with "
    "`torch.where`, a fixed count with `topk`), or leave `fullgraph=True` off so Dynamo breaks "
    "the graph at this line.")


def reads_value(op: str | None) -> bool:
    """Whether the op that made an unbacked symbol read a tensor's value (`.item()`), not an
    output size that depends on the data (`nonzero`, `x[mask]`); an unnamed op reads one."""
    return not op or op.startswith(("local_scalar_dense", "item"))


def what_symbol(op: str | None) -> str:
    """What an unbacked symbol torch made at `op` is, in the user's words."""
    if reads_value(op):
        return "a value read out of a tensor"
    said = next((words for key, words in SIZE_WORDS if op.startswith(key)), f"`{op}`")
    return f"the output size of {said}"


def unbacked_origin(ctx: Any, cid: str | None, text: str | None) -> dict[str, Any] | None:
    """{symbol, op, filename, lineno, line} of the read behind a data-dependent expression
    in `text` (torch's message), or None."""
    text = text or ""
    at = next((text.index(m) for m in DATA_DEPENDENT if m in text), None)
    if at is None:
        return None
    wanted = _SYMBOL.findall(text[at:].split("\n", 1)[0])
    made = [s for s in ctx.r.unbacked_symbols(ctx.run_id, cid)
            if s.get("filename") and s.get("lineno")
            and is_user_file(ctx.resolve(s["filename"]))]
    reads = [s for s in made if (s.get("op") or "").startswith(READ_OPS)]
    read = next((s for s in reads if s["symbol"] in wanted), reads[0] if reads else None)
    if read is None:  # torch kept no user line for the symbol: the graph's read of a value
        read = _graph_read(ctx, cid, wanted)
    return None if read is None else {
        **read, "check": _check_hint(text[at:], read), "what": what_symbol(read.get("op")),
        "fix": ORIGIN_FIX if reads_value(read.get("op")) else SIZE_ORIGIN_FIX}


# a read of a tensor's value as Dynamo's graph calls it (`l_period_.item()`, `.tolist()`)
_GRAPH_READ = re.compile(r"\.(item|tolist)\(\)")


def _graph_read(ctx: Any, cid: str | None, wanted: list[str]) -> dict[str, Any] | None:
    """The first value read in the compile's Dynamo graph at a user line, for a symbol torch
    made with no user line of its own (probes44c seasonal_period_unfold_unbacked: u0 from
    `period.item()` under capture_scalar_outputs, the failure in AOTAutograd, whose stack
    for the symbol held none of the program's frames)."""
    for n in ctx.dynamo_nodes(cid) if cid else []:
        if n.get("filename") and n.get("lineno") and _GRAPH_READ.search(n.get("call") or "") \
                and is_user_file(ctx.resolve(n["filename"])):
            return {"symbol": wanted[0] if wanted else "the value", "op": "local_scalar_dense",
                    "filename": n["filename"], "lineno": n["lineno"], "line": n.get("line")}
    return None


# the expression torch could not decide is the number against a constant: `Eq(u1, 1)` (a
# size of 1 broadcasts), `u0 < 5`
_AGAINST = re.compile(r"\b(Eq|Ne)\((u\d+), (-?\d+)\)|\b(u\d+) (<=|>=|<|>) (-?\d+)\b")
_NOT = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_TARGET = re.compile(r"^\s*([A-Za-z_]\w*)\s*=[^=]")


def _check_hint(text: str, read: dict[str, Any]) -> str:
    """`torch._check(n != 1)` for a comparison with a constant torch could not decide
    (probes35c trim_pad_mha_encoder: "Eq(u1, 1)" in the attention's bmm after `n =
    lengths.max().item()`; the check, after that line, compiled and ran as eager did)."""
    m = _AGAINST.search(text.split("\n", 1)[0])
    target = _TARGET.match(read.get("line") or "")
    if m is None or target is None:
        return ""
    op, value = (m.group(1), m.group(3)) if m.group(1) else (m.group(5), m.group(6))
    # a size against 0 or 1 (empty, broadcast): above it, which also settles a size derived
    # from the number (the helper's check `n >= 2` compiled where `n != 1` might not)
    # (a size-producing op's target is the tensor: its first dimension is the number)
    name = target.group(1) + ("" if reads_value(read.get("op")) else ".shape[0]")
    # Ne(u0, 0) undecided is the same question as Eq(u0, 0): is the size 0? It is not, for
    # the data the program runs (probes42e multicrop_unflatten_item_fullgraph: unflatten(0,
    # (n, -1)) needed `n > 0`, and the check printed was `n == 0`)
    sym = ">" if op in ("Eq", "Ne") and value in ("0", "1") else \
        "!=" if op in ("Eq", "Ne") else _NOT[op]
    check = f"{name} {sym} {value}"
    return (f"If `{check}` always holds for your data, say so after line {read['lineno']}: "
            f"`torch._check({check})` decides the comparison torch could not, and the number "
            "stays in the graph. ")


# -- a compiler stage failing on such a size, where torch names no guard (probes32b
# simclr_info_nce: `similarity[~mask]` under fullgraph=True made Inductor raise "AssertionError:
# u12 -> u0 (in op torch.ops.aten.index.Tensor)", and nothing named the boolean-mask selection;
# without fullgraph, or with aot_eager, the program ran) ----------------------------------------
# ops whose output size depends on the data, in the user's words
_OPS = (("index.Tensor", "`x[mask]` with a boolean mask"), ("masked_select", "masked_select"),
        ("nonzero", "nonzero"), ("unique", "unique"), ("repeat_interleave", "repeat_interleave"))
INDUCTOR_FIX = (
    "Inductor failed on a size that depends on the data, a fault in torch's handling of such "
    "sizes (report it: `compdiag report` bundles the repro). Around it, keep the shape fixed: "
    "select with `torch.where(mask, x, fill)` or `masked_fill` and reduce with the mask (a "
    "fixed count per row can use `topk` or `gather` with indices made once), or leave "
    "`fullgraph=True` off so Dynamo breaks the graph at the selection.")


def data_dependent(message: str | None, op: str | None) -> str | None:
    """`: an output size that depends on the data (`x[mask]` with a boolean mask; unbacked
    u12, u0)` for a failure whose message names unbacked sizes; None otherwise."""
    names = list(dict.fromkeys(_SYMBOL.findall(message or "")))
    if not names or any(w in (message or "") for w in DATA_DEPENDENT):  # unbacked_origin's
        return None
    what = next((words for key, words in _OPS if key in (op or "")), None)
    return (": an output size that depends on the data"
            + (f" ({what}" if what else " (")
            + ("; " if what else "") + f"unbacked {', '.join(names[:4])})")


# a graph break on such an expression (not fullgraph: Dynamo broke the graph at the line that
# decides on it; probes33a moe_skip_idle_experts: `if idx.numel() == 0:` after
# `idx = hit.nonzero()`, said as torch's "Consider annotating your code using torch._check*()")
BREAK_FIX = (
    "Decide without {symbol}: drop the check where what follows takes any size (`index_select`"
    ", `index_add_` and a matmul on zero rows do nothing), or keep the shape fixed (weight by a"
    " mask with `torch.where` instead of selecting rows), so no Python decision needs the "
    "data. In a loop, the break makes Dynamo skip the whole function.")


def break_origin(ctx: Any, cid: str | None, text: str | None) -> tuple[str, str] | None:
    """(`, u0 is the output size of `nonzero` at line 26 (`...`)`, the fix) for a graph break
    on a data-dependent expression whose symbol the program made; None otherwise."""
    read = unbacked_origin(ctx, cid, text)
    if read is None:
        return None
    line = (read.get("line") or "").strip()
    return (f", {read['symbol']} is {what_symbol(read.get('op'))} at line {read['lineno']}"
            + (f" (`{line}`)" if line else ""), BREAK_FIX.format(symbol=read["symbol"]))

