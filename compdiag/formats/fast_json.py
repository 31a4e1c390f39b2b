"""JSON text decoded as `json.loads` decodes it, faster: orjson where it accepts the text, the
standard library where it does not.

An import decodes every record's envelope and most payloads (a chromium event's, a cache
lookup's): about 12,000 texts for a 23 MB log, where the standard decoder was a tenth of the
parse (issue 34, docs/capture.md). orjson gives the same values for the JSON it accepts (the
same dict order, the last of a repeated key, the same floats); what it refuses and the
standard library reads (NaN and Infinity as torch's `json.dumps` may write them, integers past
64 bits, lone surrogates, nesting past 1,024 levels) goes to `json.loads`, which also raises
the same ValueError for text that is not JSON. Without orjson installed, `json.loads` alone.
"""

from __future__ import annotations

import json
from typing import Any

try:
    from orjson import loads as _fast
except ImportError:  # pragma: no cover - a dependency; kept working without it
    _fast = None


def loads(text: str) -> Any:
    """`json.loads(text)`: the same value, or the same ValueError."""
    if _fast is not None and type(text) is str:
        try:
            return _fast(text)
        except ValueError:
            pass
    return json.loads(text)
