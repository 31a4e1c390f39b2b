"""JSON text decoded as `json.loads` decodes it, faster: orjson where it accepts the text, the
standard library where it does not.

An import decodes every record's envelope and most payloads (a chromium event's, a cache
lookup's): about 12,000 texts for a 23 MB log, where the standard decoder was a tenth of the
parse (issue 34, docs/capture.md). orjson gives the same values for the JSON it accepts (the
same dict order, the last of a repeated key, the same floats); what it refuses and the
standard library reads (NaN and Infinity as torch's `json.dumps` may write them, integers past
64 bits, lone surrogates, nesting past 1,024 levels) goes to `json.loads`, which also raises
the same ValueError for text that is not JSON. Without orjson installed, `json.loads` alone.

Integers past 64 bits: orjson 3.13 stopped refusing them and reads them as floats
(-9223372036854775809 became -9.223372036854776e+18). pyproject keeps orjson below 3.13; an
orjson found reading them as floats anyway (checked once, at import) gets only the texts with
no run of 19 digits or more, the rest going to `json.loads` (that scan costs about as much as
orjson's parse, hence the pin).
"""

from __future__ import annotations

import json
import re
from typing import Any

try:
    from orjson import loads as _fast
except ImportError:  # pragma: no cover - a dependency; kept working without it
    _fast = None

# 19 digits: the shortest integer that may lie outside int64 (orjson reads uint64 exactly).
_LONG_DIGITS = re.compile(r"\d{19}").search


def _refuses_big_integers() -> bool:
    try:
        return type(_fast("-9223372036854775809")) is int  # type: ignore[misc]
    except ValueError:
        return True


_SCAN = _fast is not None and not _refuses_big_integers()


def loads(text: str) -> Any:
    """`json.loads(text)`: the same value, or the same ValueError."""
    if _fast is not None and type(text) is str and not (_SCAN and _LONG_DIGITS(text)):
        try:
            return _fast(text)
        except ValueError:
            pass
    return json.loads(text)
