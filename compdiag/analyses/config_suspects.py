"""A setting the program turned on, named as the suspect of a failure it implicates (issue 29
§2, the cause above its consequence). probes32d lstm_allow_rnn_forecast: the program set
`torch._dynamo.config.allow_rnn = True` (line 5), Dynamo then traced the LSTM and the compile
failed in `aten.mkldnn_rnn_layer`; the fix sent the user to Inductor (aot_eager failed too),
and nothing named the setting, without which the program ran (one graph break at the LSTM).

The settings are read from the program's own source as stored with the run (an assignment
to a setting of `torch._dynamo.config`, `torch._inductor.config` or `torch._functorch.config`,
spelled out); each rule says which words of a failure (or a recompile: the recompiles kind
passes "python float" for a float argument's guard) implicate its setting."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.diagnosis import UserFrame

_ASSIGN = re.compile(r"^\s*(?P<target>[\w.]+\.config\.(?P<name>\w+))\s*=\s*(?P<value>[^#]+?)\s*$")


@dataclass(frozen=True)
class Suspect:
    name: str
    words: tuple[str, ...]  # in the failure's op, message or line (lower case)
    why: str


# settings off by default that make torch trace what it otherwise leaves to eager
SUSPECTS = (
    Suspect("allow_rnn", ("rnn", "lstm", "gru"),
            "it makes Dynamo trace RNN, LSTM and GRU modules, which are off by default "
            "because tracing them is not fully supported; without it Dynamo breaks the graph "
            "at the module and runs it in eager"),
    Suspect("capture_scalar_outputs", ("local_scalar_dense", "unbacked", ".item()"),
            "it makes Dynamo trace a tensor's value read into Python (`.item()`) as an "
            "unbacked number, which later stages may fail on; without it the read is a graph "
            "break"),
    # probes41d specialize_float_temperature_sweep (fairchem#2109's setting): 8 recompiles on
    # a float argument were blamed on "Dynamo specialises on Python scalars", its default;
    # torch 2.13's default makes the float dynamic after one change
    Suspect("specialize_float", ("python float",),
            "it makes Dynamo compile every Python float argument into the graph as a constant "
            "guarded by its value, so each new value compiles again; without it (the default) "
            "a float argument becomes a dynamic input after its first change"),
    Suspect("capture_dynamic_output_shape_ops", ("unbacked", "dynamic output", "nonzero"),
            "it makes Dynamo trace ops whose output size depends on the data, which later "
            "stages may fail on; without it each such op is a graph break"),
)


def suspect(ctx: Any, filename: str | None, *texts: str | None) -> dict[str, Any] | None:
    """The setting of SUSPECTS the program turns on (to True) whose words occur in `texts`
    (the failure's op, message, user line), in the file `filename` or else in the script the
    program ran: {name, statement, frame, why}; None where none does."""
    for path in dict.fromkeys((filename, *(ctx.argv or [])[:1])):
        found = _suspect_in(ctx, path, " ".join(t for t in texts if t).lower())
        if found is not None:
            return found
    return None


def _suspect_in(ctx: Any, filename: str | None, said: str) -> dict[str, Any] | None:
    lines = ctx.code_lines(filename) or []
    for i, text in enumerate(lines, 1):
        m = _ASSIGN.match(text)
        if m is None or m.group("value") != "True":
            continue
        rule = next((s for s in SUSPECTS if s.name == m.group("name")), None)
        if rule is not None and any(w in said for w in rule.words):
            frame: UserFrame = ctx.frame(filename, i, evidence="source")
            return {"name": rule.name, "statement": f"{m.group('target')} = True",
                    "frame": frame, "why": rule.why}
    return None


def suspect_fix(found: dict[str, Any], fix: str) -> str:
    """The fix led by the setting: turn it off first."""
    return (f"The program sets `{found['statement']}` (line {found['frame'].lineno}): "
            f"{found['why']}. Run without that line first (or keep that code out of the "
            f"compiled region). Otherwise: {fix}")
