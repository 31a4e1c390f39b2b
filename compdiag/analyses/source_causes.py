"""The program's line behind a failure whose words name a construct, found in its kept source
(the failure kind's SOURCE_CAUSES): torch's words, the line's pattern, the explanation and fix
(`{lineno}` the line found), whether only past the compiled function's def, and whether the
headline names the line's call."""

from __future__ import annotations

import re

from compdiag.analyses.double_backward import (CREATE_GRAPH as _CREATE_GRAPH, DOUBLE as _DOUBLE,
                                              DOUBLE_EXPLANATION, DOUBLE_FIX)
from compdiag.analyses.fixes import SCALAR_READ_CALL

# probes29c random_crop_tolist: `top, left = torch.randint(...).tolist()` then slice bounds
# from them under fullgraph=True; Dynamo's internal error on the unbacked values they became
_PENDING = "PendingUnbackedSymbolNotFound"
PENDING_EXPLANATION = ("The values are the data-dependent numbers line {lineno} reads out of a "
                       "tensor (`.tolist()`/`.item()`), which the code then uses as sizes or "
                       "slice bounds: Dynamo loses track of them (its own error, torch's bug), "
                       "but the construct is what sets it off.")
PENDING_FIX = ("Make the numbers at line {lineno} Python numbers from the start (`random.randint` "
               "in place of `torch.randint(...).tolist()`), or pass them in as arguments, so the "
               "sizes are not data-dependent; report the internal error to PyTorch too.")
# probes35e varlen_mark_dynamic_min_only: `mark_dynamic(tokens, 1, min=2)` with no max made
# Dynamo's _automatic_dynamic build a range from None ("AssertionError: not simple sympy type
# <class 'NoneType'>: None", torch 2.13), said at the forward's first line with a fake-tensor
# fix; `max=` as well compiled it
_ONE_BOUND = "not simple sympy type"
_RANGED_MARK = re.compile(r"\bmark_dynamic\([^)]*\b(?:min|max)\s*=[^)]*\)")
ONE_BOUND_EXPLANATION = ("The assertion is torch's own, in the code that applies a "
                         "`mark_dynamic` range to the input (Dynamo's _automatic_dynamic): the "
                         "mark at line {lineno} gives one bound, and torch 2.13 builds the "
                         "range from the missing one (None).")
ONE_BOUND_FIX = ("Give the mark at line {lineno} both bounds (`min=` and `max=`, the largest "
                 "size you expect), or drop the range (`mark_dynamic(x, dim)`).")
# (torch's words, the line's pattern, explanation, fix, only past the compiled function's
# def, the line's call named in the headline, the found line replaces one torch named). An
# unbacked symbol torch loses is lost at the line it names (probes46a cutmix: the paste at 51,
# where the `.item()` bounds at 32 are used), so that line stays and the read is named; the
# other two are said at a line that only touches the input, and the line to change is elsewhere
SOURCE_CAUSES = ((_PENDING, SCALAR_READ_CALL, PENDING_EXPLANATION, PENDING_FIX, True, True,
                  False),
                 (_DOUBLE, _CREATE_GRAPH, DOUBLE_EXPLANATION, DOUBLE_FIX, False, False, True),
                 (_ONE_BOUND, _RANGED_MARK, ONE_BOUND_EXPLANATION, ONE_BOUND_FIX, False, True,
                  True))
