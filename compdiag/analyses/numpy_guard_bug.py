"""Dynamo's own guard failing on the frame that made it, for a NumPy value it converted.

torch's words: "Guard failed on the same frame it was created. This is a bug - please create
an issue. Guard fail reason: ... tensor '___from_numpy(std)' dispatch key set mismatch". A
NumPy value passed to a compiled function (a float64 scalar from `arr.std()`) becomes a tensor
inside Dynamo (`___from_numpy`); under torch.inference_mode() that tensor lacks the
ADInplaceOrView key the guard was built with, and the guard fails at once (probes31b
sensor_numpy_inference: the same call under no_grad works). It is torch's bug, not the
program's; the way round it the probe verified is to pass a Python number (`float(std)`)."""

from __future__ import annotations

import re

_OWN_BUG = "Guard failed on the same frame it was created"
_FROM_NUMPY = re.compile(r"___from_numpy\((\w+)\)")
_INFERENCE = re.compile(r"expected DispatchKeySet\([^)]*ADInplaceOrView[^)]*\), actual "
                        r"DispatchKeySet\((?![^)]*ADInplaceOrView)[^)]*\)")

REASON = "torch's own guard bug, on the NumPy value {name} it converted to a tensor{mode}"
EXPLANATION = ("Dynamo converts a NumPy value passed to a compiled function ({name}) into a "
               "tensor (`___from_numpy`) and guards on it; {why} the guard failed on the very "
               "frame that made it, which torch itself calls a bug.")
FIX = ("Pass {name} as a Python number (`float({name})`) or a torch tensor made before the "
       "call, so no NumPy value reaches the compiled function; report the bug upstream with "
       "this program (torch's message asks for an issue).")


def numpy_guard_bug(message: str | None) -> dict[str, str] | None:
    """{reason, explanation, fix} for torch's failed-on-its-own-frame guard on a NumPy value,
    or None."""
    text = message or ""
    m = _FROM_NUMPY.search(text)
    if _OWN_BUG not in text or m is None:
        return None
    inference = bool(_INFERENCE.search(text))
    words = dict(name=m.group(1),
                 mode=" under torch.inference_mode()" if inference else "",
                 why=("under torch.inference_mode() the tensor it makes lacks the "
                      "ADInplaceOrView key the guard was built with, so" if inference else ""))
    return {k: v.format(**words) for k, v in
            (("reason", REASON), ("explanation", EXPLANATION), ("fix", FIX))}
