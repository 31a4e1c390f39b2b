"""Dynamo's debug context of a graph break in a few words for its headline: what it names
without the VariableTracker dumps ('builtin print', 'module: zlib, qualname: crc32', "setting a
tensor's `.real`")."""

from __future__ import annotations

import re


# "numpy function: <bound method RandomState.beta of RandomState(MT19937) at 0x...>"
_NUMPY_FN = re.compile(r"numpy function: <(?:bound method|function|built-in function|"
                       r"built-in method) ([\w.]+)")
_SETATTR = re.compile(r"setattr\(\w*TensorVariable\([^)]*\),\s*(\w+),")
_BARE_TYPE = re.compile(r"(?<!\[)<class '((?![\w.]*Variable)[\w.]+)'>")


def short_context(debug: str) -> str:
    """Dynamo's debug context without its VariableTracker dumps: 'builtin print', 'module:
    zlib, qualname: crc32'; a tensor attribute set (probes34d iq_modem_setreal), its name."""
    numpy = _NUMPY_FN.search(debug or "")
    if numpy:  # the NumPy function torch could not trace (probes35b: RandomState.beta)
        return f"numpy function {numpy.group(1)}"
    said = _SETATTR.search(debug or "")
    if said:  # `setattr(TensorVariable(), real, TensorVariable())`: the attribute is the news
        return f"setting a tensor's `.{said.group(1)}`"
    # a bare type name torch prints as `<class 'torch._C.Generator'>` is what the break is
    # about ("Opaque object type: ..."): keep it, drop only the VariableTracker dumps
    debug = _BARE_TYPE.sub(r"\1", debug or "")
    debug = re.split(r"\s*\[(?:<class|\])|\s*<class", debug, maxsplit=1)[0].strip()
    # a skipped function's context names it twice and its file in full: 'qualname:
    # GradScaler.scale, name: scale, filename: `/.../grad_scaler.py`, skip reason: ...'
    debug = re.sub(r",?\s*skip reason:.*$", "", debug)
    debug = re.sub(r",?\s*filename: `[^`]*`", "", debug)
    if "qualname:" in debug:
        debug = re.sub(r",\s*name: [\w.<>]+", "", debug)
    if not debug or "Variable" in debug or len(debug) > 160:
        return ""
    return debug
