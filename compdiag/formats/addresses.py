"""Memory addresses out of the words a person reads.

torch quotes Python objects by their repr, `<function _enter_autocast at 0x7fb1329ce980>`:
the address differs in every process, so a headline that keeps it is different in every run
(`compdiag diff` of two runs of one program shows it as a change, and two diagnoses of one
cause in two compiles read as two), and the hex says nothing to the reader. The object's kind
and name stay; torch's own message keeps the address (details.torch_message is verbatim)."""

from __future__ import annotations

from compdiag.formats import lazy_re

# `<function f at 0x..>`, `<bound method A.f of <A object at 0x..>>`, `<A object at 0x..>`:
# the ` at 0x...` of a repr (one closing `>` follows it), and torch's `(id=0x...)`.
_AT_ADDRESS = lazy_re.compile(r" at 0x[0-9a-fA-F]{4,}(?=>)")
_ID_ADDRESS = lazy_re.compile(r" ?\(id=0x[0-9a-fA-F]+\)")


def without_addresses(text: str) -> str:
    """TEXT with every repr's ` at 0x...` and torch's `(id=0x...)` removed."""
    if "0x" not in text:
        return text
    return _ID_ADDRESS.sub("", _AT_ADDRESS.sub("", text))
