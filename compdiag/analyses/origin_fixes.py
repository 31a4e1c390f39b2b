"""The fix of a failure by who raised it: an op's fake-tensor run while Dynamo traced (torch's
own kernel, a custom op's fake implementation, an exception the program's handler catches in
eager), and Dynamo's own internal error. Split from analyses/fixes.py, which re-exports it."""

from __future__ import annotations

from compdiag.formats.command_line import command_line


# -- a fake-tensor run that raised, by who raised it (failures.origin, issue 29) -------------
# While tracing, Dynamo (and AOTAutograd) run every op on fake tensors; what raised there is
# stored with its origin (capture/exception_origin.py). Each origin's fix: torch's own kernel
# failing is torch's bug (a workaround and a report, never "check it in eager" nor a minify of
# a graph that never existed); a custom op's fake implementation is the program's to fix; an
# exception the program's own try/except catches in eager needs the handler out of the traced
# code.
TORCH_KERNEL_FIX = (
    "torch's own fake (meta) kernel failed, not your code: work around it until torch is fixed "
    "by keeping the line out of the compiled graph (move it into a small helper decorated with "
    "`@torch.compiler.disable`, or decorate {function} with it), and report it to PyTorch: "
    "`{report}` bundles torch's message, the environment and the repro. compdiag's minifier "
    "cannot replay it: it failed while Dynamo traced, before there was a graph to shrink.")
FAKE_KERNEL_FIX = (
    "Fix the fake implementation registered for `{op}` (`register_fake`): it must accept "
    "every input the real kernel accepts and return tensors of the sizes, dtypes and strides "
    "the real kernel returns; check it with `torch.library.opcheck(...)` on sample inputs.")
CAUGHT_FIX = (
    "Dynamo does not route an exception raised while it traces to your handler. Move the "
    "try/except out of the compiled region (catch around the compiled call, or put the "
    "guarded op and its try/except in a small helper decorated with "
    "`@torch.compiler.disable`), or check the condition explicitly before the op (an `if` on "
    "the sizes or dims the op needs) so that no exception is needed.")


def origin_fix(origin: str, *, op: str | None, function: str | None, run_id: int,
               store: str | None) -> str | None:
    """The fix of a failure by who raised its fake-tensor run's exception (`torch`,
    `fake_kernel`, `caught`: the program's own handler catches it in eager); None for any
    other origin."""
    if origin == "torch":
        return TORCH_KERNEL_FIX.format(function=f"`{function}`" if function else "the function",
                                       report=command_line("report", run_id, store=store))
    if origin == "fake_kernel":
        return FAKE_KERNEL_FIX.format(op=op or "the custom op")
    if origin == "caught":
        return CAUGHT_FIX
    return None


# Dynamo re-raises an exception of its own tracing it does not expect as
# InternalTorchDynamoError: torch's bug, however the wrapped error reads (issue 29 §3).
INTERNAL_ERROR = "InternalTorchDynamoError"
INTERNAL_EXPLANATION = ("Dynamo itself failed while tracing this line ({inner}): an internal "
                        "error of torch, a bug in torch rather than in your code (the same "
                        "line may well run in eager).")
INTERNAL_FIX = ("Report it to PyTorch (https://github.com/pytorch/pytorch/issues) with a small "
                "repro and the internal stack `TORCHDYNAMO_VERBOSE=1` prints. Until it is "
                "fixed, keep Dynamo off that code: decorate {function} with "
                "`@torch.compiler.disable` (or move the line into a small disabled helper) so "
                "it runs in eager; as a last resort, `torch._dynamo.config.suppress_errors = "
                "True` runs every frame Dynamo fails on in eager.")


def internal_error_fix(function: str | None) -> str:
    return INTERNAL_FIX.format(function=f"`{function}`" if function else "the function")
