"""What "the same failure" means: the innermost error's type and its first line, with
addresses, paths, hashes and numbers stripped.

Capture records it with every failing graph; the minifier's queries and the repro it writes
judge a candidate by it. The block between the markers is copied into every repro verbatim,
so it needs nothing but the standard library."""

# --- compdiag oracle begin ---
import re

# Dynamo's wrappers of the real error: a backend's, Inductor's, and a fake-tensor run's
# (TorchRuntimeError, and the Unsupported it chains when an op failed on fake tensors).
_WRAPPERS = ("BackendCompilerFailed", "InductorError", "TorchRuntimeError", "Unsupported")
_CONTEXT_WRAPPERS = ("TorchRuntimeError",)  # raised inside `except`, not `from`
_NORMALISE = [
    (re.compile(r"0x[0-9a-fA-F]+"), "0x?"),
    (re.compile(r"(?:[A-Za-z]:)?(?:/[\w.+\-@]+)+/?"), "<path>"),
    (re.compile(r"\b[0-9a-z]{20,}\b"), "<hash>"),
    (re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?"), "N"),
    (re.compile(r"\s+"), " "),
]


def innermost(exc):
    """Unwrap Dynamo's and Inductor's wrappers to the real error (a wrapper with no cause is
    itself the error: an Unsupported graph break, say)."""
    seen = set()
    while type(exc).__name__ in _WRAPPERS and id(exc) not in seen:
        seen.add(id(exc))
        inner = getattr(exc, "inner_exception", None) or exc.__cause__
        if inner is None and type(exc).__name__ in _CONTEXT_WRAPPERS:
            inner = exc.__context__
        if inner is None:
            break
        exc = inner
    return exc


def normalise_message(message):
    """The first non-empty line, with addresses, paths, hashes and numbers stripped."""
    lines = [ln.strip() for ln in str(message).splitlines() if ln.strip()]
    text = lines[0] if lines else ""
    for pattern, repl in _NORMALISE:
        text = pattern.sub(repl, text)
    return text.strip()[:300]


def signature(exc):
    """(exception type, normalised message) of the innermost error: the failure's identity."""
    exc = innermost(exc)
    return (type(exc).__name__, normalise_message(str(exc)))
# --- compdiag oracle end ---
