"""An exception the program catches in eager that escapes its handler under torch.compile.

Two ways it happens, both read from the failure, the compile's graph and the program's kept
source: (1) the `try` is inside the compiled code: Dynamo puts the op into the graph, which
runs after tracing, outside the `try`, so the `except` never sees the error (probes33e
gp_jitter_retry: `except torch.linalg.LinAlgError` around `torch.linalg.cholesky` in a helper
the compiled loss calls, said as a compiled-code failure at the call with a bisect fix);
(2) the compiled code raises another type: a traced `assert` on a tensor becomes a runtime
check that raises RuntimeError, which an `except AssertionError` around the call does not
catch (probes33e poisson_counts_assert); an index past a tensor's end, which eager's op
raises as IndexError and the compiled kernel's bounds check as RuntimeError, past an `except
IndexError` (probes35d vocab_oov_fallback: the program's out-of-vocabulary retry); the
program's own exception under fullgraph=True, which Dynamo raises as Unsupported ("Observed
exception") past the caller's `except ValueError` (probes35c serve_validate_fullgraph)."""

from __future__ import annotations

import ast
import re
from typing import Any, Callable

from compdiag.formats.user_code import is_user_file

IN_GRAPH = ("the `try` at line {try_line} cannot catch it: Dynamo put `{line}` (line {lineno}) "
            "into the compiled graph, which runs after tracing, outside the `try`, so the "
            "`except {name}` at line {handler} never sees the error")
IN_GRAPH_FIX = ("Keep the try/except in eager: decorate the function that holds it with "
                "`@torch.compiler.disable` (it then runs uncompiled, a graph break around it), "
                "or check without raising inside the compiled code (an op's `_ex` form that "
                "returns an error code, `torch.linalg.cholesky_ex`, then `torch.where` on it).")
ASSERT_TYPE = ("torch.compile turned the `assert` at line {lineno} into a runtime check that "
               "raises RuntimeError, not AssertionError: the `except AssertionError` at line "
               "{handler} no longer catches it")
# the words of a compiled kernel's bounds check (Inductor's C++ TORCH_CHECK, Triton's assert)
BOUNDS = "index out of bounds"
INDEX_TYPE = ("the compiled kernel's bounds check raises RuntimeError where eager raises "
              "IndexError: the `except IndexError` at line {handler} no longer catches it")
INDEX_FIX = ("Catch both around the compiled call (`except (IndexError, RuntimeError):`), or "
             "check the indices before the compiled call, in eager (map ids past the end to a "
             "valid one with `torch.where`, as the handler does).")
# Dynamo's debug context for a raise it traced: "raised exception ValueError('...')"
OBSERVED = re.compile(r"raised exception (\w+)\(")
OBSERVED_TYPE = ("the {raised} the code raises comes out as Unsupported under fullgraph=True "
                 "(Dynamo raises it while tracing): the `except {raised}` at line {handler} "
                 "no longer catches it")
OBSERVED_FIX = ("Check the input before the compiled call, in eager (raise the {raised} "
                "there), or drop fullgraph=True: the call then runs in eager from the `raise` "
                "on, and the handler catches the {raised} as before.")
# Dynamo's wrapper of an exception the traced code raised on fake tensors: TorchRuntimeError
# ("... got ValueError('Expected input batch_size (8) to match target batch_size')"), a
# RuntimeError, past the caller's `except ValueError` (probes37c ce_batch_valueerror_escapes:
# a loop that skips malformed batches ended at the first one under torch.compile)
WRAPPED = re.compile(r"\bgot (\w+(?:Error|Exception))\(")
WRAPPED_TYPE = ("Dynamo raises the {raised} it met while tracing as TorchRuntimeError (a "
                "RuntimeError): the `except {raised}` at line {handler} no longer catches it")
WRAPPED_FIX = ("Check the input before the compiled call, in eager (raise the {raised} there, "
               "as the op would), or catch both around the compiled call (`except ({raised}, "
               "RuntimeError):`).")
ASSERT_FIX = ("Catch both around the compiled call (`except (AssertionError, RuntimeError):`), "
              "or check the condition before the compiled call, in eager.")


def _handlers(text: str | None) -> list[tuple[ast.Try, ast.ExceptHandler]]:
    try:
        tree = ast.parse(text or "")
    except SyntaxError:
        return []
    return [(node, h) for node in ast.walk(tree) if isinstance(node, ast.Try)
            for h in node.handlers]


def _names(handler: ast.ExceptHandler) -> list[str]:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else \
        [handler.type] if handler.type is not None else []
    return [ast.unparse(k).rsplit(".", 1)[-1] for k in kinds]


def _body(t: ast.Try) -> range:
    """The lines of a `try`'s body."""
    return range(t.body[0].lineno, (t.body[-1].end_lineno or t.body[-1].lineno) + 1)


def _first_handler(ctx: Any, files: list[str], catches: Callable[[list[str]], bool],
                   around: set[tuple[Any, Any]] | None = None) -> ast.ExceptHandler | None:
    """The first `except` in the program's files whose exception names `catches` accepts;
    with `around` ({(file, line)}), only one whose `try` body holds one of those lines."""
    for path in files:
        for t, h in _handlers(ctx.source_text(path)):
            if catches(_names(h)) and (around is None or any(
                    (path, n) in around for n in _body(t))):
                return h
    return None


def escaped_handler(ctx: Any, cid: str | None, exc_type: str | None, frame: Any,
                    message: str = "") -> tuple[Any, str, str] | None:
    """(the user frame, the reason's clause, the fix) for a failure whose exception a handler
    of the program's would have caught in eager; None otherwise. `message`: the failure's."""
    name = (exc_type or "").rsplit(".", 1)[-1].lstrip("_")
    files = sorted(f for f in ctx.r.source_paths(ctx.run_id) if is_user_file(f))
    observed = OBSERVED.search(message) if name == "Unsupported" else None
    if observed is not None:
        raised = observed.group(1)
        h = _first_handler(ctx, files, lambda names: raised in names)
        return None if h is None else (
            frame, OBSERVED_TYPE.format(raised=raised, handler=h.lineno),
            OBSERVED_FIX.format(raised=raised))
    wrapped = WRAPPED.search(message) if name == "TorchRuntimeError" else None
    if wrapped is not None and wrapped.group(1) != "RuntimeError":
        raised = wrapped.group(1)
        # a handler whose `try` holds the compiled call (or the failing line), not any one
        calls = {(f.filename, f.lineno) for f in [*ctx.call_chain(cid), frame]}
        h = _first_handler(ctx, files, lambda names: raised in names and not {
            "RuntimeError", "TorchRuntimeError", "Exception", "BaseException"} & set(names),
            around=calls)
        if h is not None:
            return (frame, WRAPPED_TYPE.format(raised=raised, handler=h.lineno),
                    WRAPPED_FIX.format(raised=raised))
    if name == "RuntimeError" and BOUNDS in message:
        h = _first_handler(ctx, files,
                           lambda names: "IndexError" in names and "RuntimeError" not in names)
        if h is not None:
            return frame, INDEX_TYPE.format(handler=h.lineno), INDEX_FIX
    if name == "RuntimeError" and (frame.line or "").lstrip().startswith("assert "):
        h = _first_handler(ctx, files, lambda names: "AssertionError" in names)
        return None if h is None else (
            frame, ASSERT_TYPE.format(lineno=frame.lineno, handler=h.lineno), ASSERT_FIX)
    traced = {(ctx.resolve(n.get("filename")), n.get("lineno"))
              for n in ctx.r.dynamo_nodes(ctx.run_id, cid) if n.get("lineno")}
    for path in files:
        lines = ctx.source_lines(path) or []
        for t, h in _handlers(ctx.source_text(path)):
            if name not in _names(h):
                continue
            hit = next((n for n in _body(t) if (path, n) in traced), None)
            if hit is not None:
                line = lines[hit - 1].strip() if hit <= len(lines) else ""
                return ctx.frame(path, hit, lines[hit - 1] if hit <= len(lines) else None,
                                 evidence="fx_node"), IN_GRAPH.format(
                    try_line=t.lineno, line=line, lineno=hit, name=ast.unparse(h.type),
                    handler=h.lineno), IN_GRAPH_FIX
    return None
