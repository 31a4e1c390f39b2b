"""The fix for a tensor's value read into Python inside a compiled function
(aten._local_scalar_dense): the call the user's line makes (`.item()`, `.tolist()`, a NumPy
scalar), or a tensor used as a number with no call at all (a slice bound, a size), each as
what was verified to work on the probes named."""

from __future__ import annotations

import ast
import re

ITEM_FIX = ("`.item()` turns a tensor into a Python number. Keep it a tensor (e.g. `x * t` "
            "instead of `x * t.item()`), or set `torch._dynamo.config.capture_scalar_outputs = "
            "True` to trace it as an unbacked SymInt/SymFloat.")
# (probes45b gpt2_rep_penalty_set_tolist: with capture_scalar_outputs the frame was still
# skipped, `set(t.tolist())` over the traced ints broke in a loop; offered as the way out)
TOLIST_FIX = ("`.tolist()` leaves tensor land. Keep the computation vectorised on tensors "
              "(index, `torch.where`, `gather`/`scatter`, reductions) instead of iterating over "
              "Python values. `torch._dynamo.config.capture_scalar_outputs = True` traces the "
              "read of an integer tensor, but Python work on the values it gives (a `set`, a "
              "loop, a dict key) still breaks the graph.")


def scalar_read_fix(gb_type: str, expl: str, ctx: str, line: str) -> str:
    """A tensor's value read into Python (aten._local_scalar_dense): the fix for the call the
    user's line makes, `.tolist()` or `.item()` (and what reads one implicitly)."""
    if NUMPY_CALL.search(line) and not SCALAR_READ_CALL.search(line):
        return NUMPY_SIZES_FIX if _SIZES.search(line) else NUMPY_SCALAR_FIX
    if line.strip() and not SCALAR_READ_CALL.search(line) and \
            re.search(r"(?<![\w.])(?:min|max)\(", line):
        return MINMAX_FIX
    math = MATH_CALL.search(line)
    if math and not SCALAR_READ_CALL.search(line):
        return MATH_READ_FIX.format(fn=math.group(1))
    if line.strip() and not SCALAR_READ_CALL.search(line):
        return IMPLICIT_READ_FIX
    if _BRANCH_HEAD.match(line) or " if " in line:
        return BRANCH_READ_FIX
    return TOLIST_FIX if ".tolist(" in line and ".item(" not in line else ITEM_FIX


# probes32a glow_actnorm_init: `if self.initialized.item() == 0:` (a data-dependent init);
# with capture_scalar_outputs the read traced and the `if` on it broke the graph anyway
_BRANCH_HEAD = re.compile(r"^\s*(?:el)?if\b|^\s*while\b|^\s*assert\b")
BRANCH_WAYS = (
    "Take the branch out of the compiled code: a one-time step (a data-dependent "
    "initialisation) run once in eager before the compiled calls, or a flag kept as a Python "
    "bool the compiled code reads (one recompile when it flips); or compute both sides and "
    "select with `torch.where`, a lookup in a tensor indexed by the value (`table[t]`) for a "
    "membership test (`torch.cond` for branches of whole graphs).")
BRANCH_READ_FIX = (
    "The value read here decides a Python branch, which needs it while tracing: no setting "
    "gives it (`capture_scalar_outputs = True` traces the read, and the branch on it breaks "
    "the graph anyway). " + BRANCH_WAYS)


# probes39c cosine_lr_math_cos_step_break: `math.cos(math.pi * progress)` on a tensor read its
# value (Tensor.__float__); the fix listed slice bounds and cumsum masks, none of them the line
MATH_CALL = re.compile(r"\bmath\.(\w+)\(")
MATH_READ_FIX = (
    "`math.{fn}` works on Python floats, so on a tensor it reads the tensor's value out of the "
    "graph: use torch's function on the tensor (`torch.{fn}(...)`, with `torch.pi` for "
    "`math.pi`) and keep the result a tensor; or compute it outside the compiled function "
    "and pass the number in (a tensor, so a new value needs no recompile).")


# probes30a left_pad_positions: `positions[b, n_pad[b]:] = torch.arange(T - n_pad[b])` read
# n_pad[b] implicitly; the ITEM_FIX's capture_scalar_outputs then failed in Inductor
# ("LoweringException: NotImplementedError: View"), a cumsum of the mask worked.
IMPLICIT_READ_FIX = (
    "This line uses a tensor's value as a Python number (a slice bound, a size, an index, "
    "`int(t)`, `range(t)`), which reads it out of the graph. Compute it with tensor ops "
    "instead (a mask such as `torch.arange(T) >= n[:, None]`, `torch.cumsum` of a mask, "
    "`gather`/`index_select` with the tensor), or make the number outside the compiled "
    "function and pass it in as an int. `capture_scalar_outputs = True` traces the read, but "
    "a size or slice bound made from it often fails later, in Inductor.")


# A NumPy call on the user's line: Dynamo traces NumPy through torch._numpy, and a NumPy
# scalar it makes becomes a Python number through aten._local_scalar_dense (probes29a
# numpy_gain_jitter: `np.random.uniform(-6.0, 6.0)`, said as ".item()" advice)
NUMPY_CALL = re.compile(r"\b(?:np|numpy)\.[\w.]+\(")
# A tensor's value read into Python by name (`.item()`, `.tolist()`).
SCALAR_READ_CALL = re.compile(r"\.(?:tolist|item)\(\)")
# probes29a numpy_gain_jitter: `capture_scalar_outputs` left the break ("Could not guard on
# data-dependent expression") and a recompile on the value; a torch draw removed both
NUMPY_SCALAR_FIX = (
    "Dynamo traces NumPy calls as torch ops (torch._numpy), and the Python number this NumPy "
    "call returns is a tensor's value read out of the graph. Compute it with torch so it "
    "stays a tensor (a random draw: `torch.empty(()).uniform_(low, high)` in place of "
    "`np.random.uniform(low, high)`), or make it outside the compiled function and pass it "
    "in as a tensor; `capture_scalar_outputs` does not help when code then branches on it.")


# A NumPy call over a tensor's sizes (`np.prod(x.shape[1:])`): the sizes are Python ints
# already, and NumPy made them a tensor whose value the line then reads (probes40a
# convnet_np_prod_flatten, hexgrad/kokoro#91: "compute it with torch" moved the break to the
# `view`; `math.prod` gave no break)
_SIZES = re.compile(r"\.shape\b|\.size\(|\.dim\(\)|\.ndim\b|\.numel\(\)")
NUMPY_SIZES_FIX = (
    "Dynamo traces NumPy calls as torch ops (torch._numpy), so NumPy over a tensor's sizes "
    "makes a tensor of them, whose value this line then reads back. The sizes are Python ints "
    "already: use Python's own arithmetic on them (`math.prod(x.shape[1:])` for `np.prod`, "
    "`sum(...)`, `max(...)`), or a torch call that takes the shape as it is (`x.flatten(1)`); "
    "a tensor made of them (`torch.prod(torch.tensor(x.shape))`) is read back the same way.")


# The Python calls that read a tensor's value (aten._local_scalar_dense in torch's words).
_SCALAR_READ = re.compile(r"\.(tolist|item)\(\)|\b(int|float|bool)\(")


def scalar_read(context: str | None, line: str | None) -> str | None:
    """`.tolist()` (or `.item()`, `int(...)`, NumPy's `np.random.uniform(...)`) when torch's
    break names aten._local_scalar_dense and the user's line makes that call; None
    otherwise."""
    if not context or "_local_scalar_dense" not in context or not line:
        return None
    m = _SCALAR_READ.search(line)
    numpy = NUMPY_CALL.search(line)
    if m is None or (numpy and not m.group(1)):  # `int(np.prod(...))`: NumPy's call made it
        return f"{numpy.group(0)}...)" if numpy else None
    return f".{m.group(1)}()" if m.group(1) else f"{m.group(2)}(...)"


# Reads a line makes without a call that names them (probes32g adaptive_step_minmax: Python's
# `min`/`max` comparing a float with a tensor; probes32e split_per_image: `boxes[best]` with a
# 0-d tensor `best`): said in the user's terms where torch names only _local_scalar_dense.
# the breaks a read of a tensor's value makes: the data-dependent op's, and Dynamo's own
# `Tensor.item()` call for a Python slice bound or index (`__index__`)
IMPLICIT_CONTEXTS = ("_local_scalar_dense", "Tensor.item()")
# torch calls whose arguments after the first are sizes, split points or bounds
SIZE_TAKING = frozenset({"tensor_split", "split", "narrow", "split_with_sizes", "unflatten",
                         "repeat_interleave", "view", "reshape", "expand", "repeat", "new_zeros",
                         "new_ones", "new_empty", "new_full"})
_BUILTIN_READ = re.compile(r"(?<![\w.])(min|max|round|abs)\(")
MINMAX_FIX = (
    "Python's `min`/`max` compare the tensor with a number, which reads its value out of the "
    "graph: keep it a tensor with `torch.clamp(t, low, high)` (or `torch.minimum`/"
    "`torch.maximum`), and pass plain numbers in as tensors where they mix with it.")


def implicit_read(context: str | None, line: str | None) -> str | None:
    """`Python's min(...), max(...) on a tensor` or `an index by a tensor's value (boxes[best])`
    for a break on aten._local_scalar_dense at a line that makes no call scalar_read names;
    None otherwise."""
    if not context or not any(k in context for k in IMPLICIT_CONTEXTS) or not line \
            or scalar_read(context, line) or ".item(" in line:
        return None
    names = list(dict.fromkeys(_BUILTIN_READ.findall(line)))
    if names:
        return "Python's " + ", ".join(f"`{n}(...)`" for n in names) + " on a tensor"
    text = line.strip() + (" pass" if line.strip().endswith(":") else "")
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    # a slice bound computed from something (`path[: lengths[b] - 1]`): Python's slice of a
    # list reads a tensor bound's value (probes33d viterbi_length_slice, said as `.item()`)
    # (one of several dimensions' too: `x[b, :n]`, probes34b bigru_reverse_lengths)
    cut = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Subscript)
           and any(isinstance(d, ast.Slice) and any(
               b is not None and not isinstance(b, (ast.Constant, ast.UnaryOp))
               for b in (d.lower, d.upper, d.step))
               for d in (n.slice.elts if isinstance(n.slice, ast.Tuple) else (n.slice,)))]
    if cut:
        return f"a slice bound from a tensor's value (`{'`, `'.join(dict.fromkeys(cut))}`)"
    subs = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Subscript)
            and isinstance(n.slice, (ast.Name, ast.Attribute))]
    if subs:
        return f"an index by a tensor's value (`{'`, `'.join(dict.fromkeys(subs))}`)"
    # an op given a tensor where it takes Python numbers (`torch.tensor_split(emb,
    # offsets[:-1])`: split points; probes33g offsets_segment_mean said only
    # "aten._local_scalar_dense")
    takes = [ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)
             and ast.unparse(n.func).rsplit(".", 1)[-1] in SIZE_TAKING
             and any(not isinstance(a, ast.Constant) for a in (
                 n.args[1:] if ast.unparse(n.func).startswith("torch.") else n.args))]
    return (f"`{takes[0]}(...)` given a tensor where it takes Python numbers (sizes, split "
            "points, bounds)" if takes else None)


# probes43c hf_gpt2_prefix_allowed_fn_item: `last = sent[-1].item()` then `if last in OPS:` a
# line below; ITEM_FIX's capture_scalar_outputs moved the break to the `if`
BRANCHED_LATER = (" The value read here decides the Python branch at line {lineno} (`{text}`), "
                  "which needs it while tracing, so `capture_scalar_outputs = True` would only "
                  "move the break there. ")


def branched_later(source: str | None, lineno: int | None, line: str | None
                   ) -> tuple[int, str] | None:
    """(line, text) of the first `if`/`while`/`assert`/conditional expression after
    `lineno`, in the same function, whose test reads a name `line` assigns (the value a
    scalar read gave), or None."""
    import ast

    from compdiag.formats.code_text import assigned_names, innermost_def

    names = assigned_names(line)
    if not source or not lineno or not names:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    scope = innermost_def(tree, lineno) or tree
    tests = sorted(((n.lineno, n.test) for n in ast.walk(scope)
                    if isinstance(n, (ast.If, ast.While, ast.Assert, ast.IfExp))
                    and n.lineno > lineno), key=lambda t: t[0])
    for at, test in tests:
        if names & {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}:
            lines = source.splitlines()
            return at, lines[at - 1].strip() if at <= len(lines) else ""
    return None
