"""Who raised in a fake-tensor run that failed a compile (failures.origin, stored at ingest from
capture's record of the original exception): torch's own fake kernel, a custom op's fake
implementation, or an exception of the program's own kind that a try/except of the program's
catches in eager. Split from analyses/diagnoses/failures.py, which words the failure with it."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats.failure_graph import TORCH_NAMESPACES
from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.handlers import enclosing_handler
from compdiag.ingest import parsers as P

# A fake-tensor run that raised, by who raised it (failures.origin, stored at ingest from
# capture's record of the original exception): (headline, explanation) templates. The fix of
# each is analyses/fixes.py's origin_fix.
ORIGIN_TEXT = {
    "torch": ("torch's fake kernel for {op} failed on a line eager runs: {exc}",
              "While tracing, Dynamo runs each op on fake tensors; torch's own fake (meta) "
              "implementation of `{op}` raised {exc_type}, an internal failure of torch's code "
              "rather than a check of your inputs: a bug in torch, not in your code."),
    "fake_kernel": ("the fake implementation (register_fake) of custom op {op} is the likely "
                    "cause: {exc}",
                    "torch trusts a custom op's fake implementation for the sizes, dtypes and "
                    "strides of its outputs (Dynamo runs it while tracing, Inductor plans "
                    "memory and checks the real outputs against it); the one registered for "
                    "`{op}` raised or disagrees with the real kernel."),
    "caught": ("{exc} at line {lineno}, which eager's `{clause}` (line {handler}) catches: "
               "Dynamo does not trace the handling of an exception raised on fake tensors",
               "In eager the op raises {exc_type} inside your `try` and the handler runs; "
               "under torch.compile the same exception is raised while the ops run on fake "
               "tensors during tracing, which ends the compile instead of reaching the "
               "handler."),
    "handled": ("{exc} at line {lineno}: the compile failed on this input, and the "
                "program's `{clause}` (line {handler}) around the compiled call caught it, as "
                "it catches eager's error",
                "Dynamo ran the ops on fake tensors of this input's shapes, and the op rejected "
                "them as it does in eager; torch.compile raised that error as "
                "TorchRuntimeError, a RuntimeError, at the compiled call, where the program's "
                "handler caught it and went on. The run's results are eager's: nothing was "
                "compiled for this input."),
}
# What Dynamo's TorchRuntimeError is, for a handler around the compiled call.
WRAPPER_CLASSES = ("TorchRuntimeError", "RuntimeError", "Exception", "BaseException")
HANDLED_FIX = ("Nothing to fix if the program means to reject such inputs. Under "
               "torch.compile the exception's type is TorchRuntimeError (a RuntimeError): "
               "test `isinstance(e, RuntimeError)`, not the type's name; and each rejected "
               "input costs a compile attempt, so check the sizes before the call where "
               "rejections are frequent.")
# A fake-tensor failure inside a private builtin of torch's (`<built-in function
# _infer_size>` under `kl_divergence(q, prior)` of two MultivariateNormal: probes33e
# bayes_linreg_mvn_kl, whose fix said to check the line in eager, where it runs)
TORCH_INTERNAL = re.compile(r"call_function <built-in function (_\w+)>")
INTERNAL_FAKE_FIX = (
    "Dynamo fails inside torch's own code for `{call}(...)` (`{fn}` on fake tensors): a torch "
    "limitation, not the program's bug if the line runs in eager "
    "(`torch.compiler.set_stance(\"force_eager\")` tells). Keep the call out of the "
    "compiled code (a small `@torch.compiler.disable` helper around it), or write what it "
    "computes with plain tensor ops (a closed form); report the case to PyTorch.")
# The stages whose ops run on fake tensors while torch traces them (Dynamo, AOTAutograd).
TRACED_STAGES = ("dynamo", "aot")
# torch's documented exception classes and the builtin one each derives from (a handler that
# names the builtin base catches them).
TORCH_EXCEPTION_BASES = {"LinAlgError": "RuntimeError", "_LinAlgError": "RuntimeError",
                         "OutOfMemoryError": "RuntimeError", "AcceleratorError": "RuntimeError"}


def _exception_classes(name: str | None) -> list[str]:
    classes = P.builtin_classes(name)
    base = TORCH_EXCEPTION_BASES.get(name or "")
    return classes + P.builtin_classes(base) if base else classes


def origin_verdict(ctx: Any, failure: dict[str, Any], frame: UserFrame, one: str
                   ) -> tuple[str, str, str] | None:
    """(origin, headline, explanation) of a failure whose traced run raised, by who raised
    it: torch's own kernel, a custom op's fake implementation, or (`caught`) an exception of
    the program's own kind that the program's try/except around the line catches in eager
    (analyses/handlers.py, from the kept source). None where the store does not say."""
    origin, op = failure.get("origin"), failure.get("fake_op") or failure.get("op")
    exc = failure.get("origin_exc") or ""
    exc_type = exc.split(":", 1)[0] if exc else None
    if origin == "torch" and op and op.split(".", 1)[0] not in TORCH_NAMESPACES:
        # torch's code that raised checks a custom op's fake against its schema (outputs of
        # another structure): the program's own fake is at fault, not torch's (probes44c
        # cop_minmax_fake_single_return: one tensor returned for a (Tensor, Tensor) op)
        origin = "fake_kernel"
    if origin == "torch" and op:
        head, expl = ORIGIN_TEXT["torch"]
        return "torch", head.format(op=op, exc=exc or one), expl.format(op=op, exc_type=exc_type)
    if origin == "fake_kernel" and op:
        head, expl = ORIGIN_TEXT["fake_kernel"]
        return "fake_kernel", head.format(op=op, exc=exc or one), expl.format(op=op)
    if origin not in (None, "check") or failure.get("stage") not in TRACED_STAGES:
        return None
    if exc_type is None and len(P.builtin_classes(failure.get("exc_type"))) > 1:
        exc_type, exc = failure["exc_type"], one  # the traced run's own exception, unwrapped
    cid = failure.get("compile_id")
    if any((c.filename, c.lineno) == (frame.filename, frame.lineno)
           for c in ctx.call_chain(cid)) and not ctx.in_function(cid, frame):
        # the `try` holds the compiled call, outside what Dynamo traced: it sees Dynamo's
        # TorchRuntimeError, a RuntimeError (probes38k fail_caught_compiled_error)
        handler = enclosing_handler(ctx.source_text(frame.filename), frame.lineno,
                                    WRAPPER_CLASSES)
        if handler is None:
            return None
        head, expl = ORIGIN_TEXT["handled"]
        return "handled", head.format(exc=exc or one, lineno=frame.lineno,
                                      clause=handler.clause, handler=handler.lineno), expl
    handler = enclosing_handler(ctx.source_text(frame.filename), frame.lineno,
                                _exception_classes(exc_type))
    if handler is None:
        return None
    head, expl = ORIGIN_TEXT["caught"]
    return "caught", head.format(exc=exc or one, lineno=frame.lineno, clause=handler.clause,
                                 handler=handler.lineno), expl.format(exc_type=exc_type)
