"""JSON text decoded as `json.loads` decodes it, faster: orjson where it accepts the text, the
standard library where it does not.

An import decodes every record's envelope and most payloads (a chromium event's, a cache
lookup's): about 12,000 texts for a 23 MB log, where the standard decoder was a tenth of the
parse (issue 34, docs/capture.md). orjson gives the same values for the JSON it accepts (the
same dict order, the last of a repeated key, the same floats); what it refuses and the
standard library reads (NaN and Infinity as torch's `json.dumps` may write them, lone
surrogates, nesting past 1,024 levels) goes to `json.loads`, which also raises the same
ValueError for text that is not JSON. Without orjson installed, `json.loads` alone.

Integers past 64 bits orjson does not refuse: it reads them as floats (every version from 3.10
to 3.13 tried: -9223372036854775809 became -9.223372036854776e+18). A value orjson returns with
a float that large in it (at least 9.2e18 in magnitude, where int64 and uint64 end) is read
again by `json.loads`: walking the value costs about what orjson's parse does, scanning the
text for runs of 19 digits eight times that.
"""

from __future__ import annotations

import json
from typing import Any

try:
    from orjson import loads as _fast
except ImportError:  # pragma: no cover - a dependency; kept working without it
    _fast = None


_BIG = 9.2e18  # no float this large comes from an integer orjson reads exactly


def _has_big_float(value: Any) -> bool:
    """Whether VALUE (what orjson returned) holds a float of magnitude >= _BIG anywhere."""
    kind = type(value)
    if kind is float:
        return value >= _BIG or value <= -_BIG
    if kind is dict:
        value = value.values()
    elif kind is not list:
        return False
    for item in value:
        kind = type(item)
        if kind is str or kind is int or item is None or kind is bool:
            continue
        if _has_big_float(item):
            return True
    return False


def loads(text: str) -> Any:
    """`json.loads(text)`: the same value, or the same ValueError."""
    if _fast is not None and type(text) is str:
        try:
            value = _fast(text)
        except ValueError:
            pass
        else:
            if not _has_big_float(value):
                return value
    return json.loads(text)
