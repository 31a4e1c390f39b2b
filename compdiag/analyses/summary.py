"""torch's message in one line that keeps its decisive part.

torch often states the fact a user searches for after its first line: the mismatching size,
stride or dtype, the guard that failed ("last reason: ..."), the wrapped error under
"backend='inductor' raised:", the GB code in a URL. Cutting at the first line loses it. The
summary is the first line plus the later lines that a rule below calls decisive (first
matches, in message order, at most MAX_PICKED), with the GB code; the whole message stays in
`details.torch_message`."""

from __future__ import annotations

import re

# (what the line states, the pattern a decisive line matches). Order does not matter: lines
# keep the message's order.
DECISIVE: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(p, re.I)) for name, p in (
    ("a wrapped error", r"^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Failed)\b:\s*\S"),
    ("a size/stride/dtype mismatch",
     r"\b(?:sizes?|strides?|dtypes?|shapes?|devices?|layouts?|ndim|dim(?:ension)?s?)\b.*"
     r"(?:mismatch|expected|got|actual|==|!=|\bbut\b|\bvs\b|does not match|must match)"),
    ("expected vs got", r"\bexpected\b.*\b(?:got|but|actual|found|received)\b"),
    ("the failed guard", r"(?:last reason:|guard fail|___check_|\bL\[['\"]|\bG\[['\"])"),
    ("a specialised symbol", r"inferred to be a constant|not all values of"),
    ("the mismatch measured", r"^(?:mismatched elements|greatest (?:absolute|relative) "
                              r"difference)"),
    ("the op being lowered", r"^target:\s"),
    ("the keys that did not match", r"^(?:missing|unexpected) key\(s\)"),
    # a C++ compiler's own words under a CppCompileError (probes45c cpp_march_znver5_deploy:
    # "cc1plus: error: bad value 'znver5' for '-march=' switch" was in no view)
    ("the compiler's error", r"^(?:\S+:\s*)?(?:fatal\s+)?error:\s*\S"),
))
WRAPPED = DECISIVE[0][1]
RAISED = re.compile(r"^[A-Za-z_][\w.]*:\s*\S")  # `Name: message`, below a wrapper's "raised:"
# Lines that are never the decisive part: advice, pointers, tracebacks, Dynamo's sections.
NOISE = re.compile(
    r"^(?:File \"|Traceback \(most recent|from user code:|set TORCH_LOGS|for more "
    r"(?:information|details)|to log all recompilation|explanation:|hint:|developer debug "
    r"context:|you can suppress|to execute this test|use torch\.library\.opcheck|see https?://|"
    r"this error most often|to diagnose recompilation|note: |triggered by the following guard|"
    r"\^+$|~+$)", re.I)
# Where a message's user-code section starts: nothing after it is torch's statement.
STOP = re.compile(r"^(?:from user code:|Traceback \(most recent call last\)|User stack trace:|"
                  r"The above exception was the direct cause)", re.I)
GB_CODE = re.compile(r"/gb/(gb\d{4})\.html", re.I)
MAX_PICKED = 2
SEP = " — "


def decisive_lines(message: str, *, from_first: bool = False) -> list[str]:
    """The lines after the first (or from the first: a message with no heading, such as the
    guard failures torch lists for a recompile) that a DECISIVE rule matches, in the
    message's order."""
    lines = [re.sub(r"^[-*•]\s+", "", ln.strip()) for ln in (message or "").strip().splitlines()]
    picked: list[str] = []
    start = 0 if from_first else 1
    for i, line in enumerate(lines[start:], start):
        if STOP.match(line):
            break
        if not line or NOISE.match(line) or line in picked:
            continue
        # the line after a wrapper's "raised:" is the wrapped error, whatever its class name
        after_raised = i > 0 and lines[i - 1].endswith("raised:") and RAISED.match(line)
        if after_raised or any(rule.search(line) for _, rule in DECISIVE):
            picked.append(line)
        if len(picked) >= MAX_PICKED:
            break
    return picked


def summarise(message: str | None, exc_type: str | None = None, limit: int = 400) -> str:
    """One line: `Type: first line — decisive line — ... [GBxxxx]`, at most `limit` chars
    (the first line is shortened first, so the decisive part survives)."""
    text = (message or "").strip()
    head = text.splitlines()[0].strip() if text else ""
    picked = decisive_lines(text)
    wrapped = bool(picked and head.endswith(":") and (WRAPPED.search(picked[0])
                                                      or head.endswith("raised:")))
    if picked and (not head or wrapped):
        head, picked = picked[0], picked[1:]  # a wrapper ("... raised:"): the wrapped error
    code = GB_CODE.search(text)
    tail = SEP.join(picked)
    if code and code.group(1).upper() not in head + tail:
        tail = (tail + " " if tail else "") + f"[{code.group(1).upper()}]"
    if exc_type and exc_type not in head and not wrapped \
            and not re.match(r"^[\w.]*(?:Error|Exception)\b", head):
        head = f"{exc_type}: {head}" if head else exc_type
    if not tail:
        return head[:limit]
    room = max(limit // 3, limit - len(tail) - len(SEP))
    if len(head) > room:
        head = head[:room - 1].rstrip() + "…"
    out = f"{head}{SEP}{tail}" if not tail.startswith("[") else f"{head} {tail}"
    return out[:limit]


def with_decisive(line: str, message: str | None, limit: int = 400, *,
                  from_first: bool = False) -> str:
    """compdiag's own one-line reason, plus the decisive lines of torch's message (and its GB
    code) that the line does not already hold."""
    text = message or ""
    extra = [d for d in decisive_lines(text, from_first=from_first)
             if d not in line and d[:80] not in line]
    code = GB_CODE.search(text)
    tail = SEP.join(extra)
    if code and code.group(1).upper() not in line + tail:
        tail = (tail + " " if tail else "") + f"[{code.group(1).upper()}]"
    if not tail:
        return line[:limit]
    room = max(limit // 3, limit - len(tail) - len(SEP))
    if len(line) > room:
        line = line[:room - 1].rstrip() + "…"
    return (f"{line} {tail}" if tail.startswith("[") else f"{line}{SEP}{tail}")[:limit]
