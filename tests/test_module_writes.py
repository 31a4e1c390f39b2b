"""A module attribute the program sets after a compile, and the recompile it caused pointed at
that line (capture/module_writes.py, analyses/attribute_writes.py). Before them a recompile
on `self.grad_checkpointing` or on a replaced head was shown at the compiled call, with a
`mark_dynamic` fix for a parameter that it cannot help (probes44b)."""

from __future__ import annotations

import types
from types import SimpleNamespace

import torch

from compdiag.analyses.attribute_writes import attribute_write, write_words
from compdiag.capture import module_writes


class _Capture:
    paused_depth = 0

    def __init__(self) -> None:
        self.events: list = []
        self.ing = SimpleNamespace(event=lambda *a: self.events.append(a))

    def guarded(self, where, fn, *args):
        fn(*args)


def test_sets_after_a_compile_are_kept_once_per_line_and_the_attribute_is_set() -> None:
    cap = _Capture()
    compiled = [0]
    original = torch.nn.Module.__setattr__
    module_writes.install(cap, lambda: compiled[0], lambda f: f == __file__)
    try:
        m = torch.nn.Linear(2, 2)
        m.flag = True  # before any compile: nothing kept
        compiled[0] = 1
        for _ in range(3):
            m.flag = False  # kept once
        m.train(False)  # torch's own loop over the modules: kept at this line
        assert m.flag is False and m.training is False
    finally:
        torch.nn.Module.__setattr__ = original
    kept = [(e[2]["key"], e[2]["call"]["line"]) for e in cap.events]
    assert kept == [("flag", "m.flag = False  # kept once"),
                    ("training", "m.train(False)  # torch's own loop over the modules: "
                                 "kept at this line")], kept


class _Reader:
    def __init__(self, records):
        self._records = records

    def records(self, run_id, kind=None, with_payload=True):
        return [r for r in self._records if r["kind"] == kind]


def _ctx(records):
    from compdiag.analyses.context import RunContext

    ctx = SimpleNamespace(run_id=1, r=_Reader(records),
                          frame=lambda f, n, line, ev: SimpleNamespace(
                              filename=f, lineno=n, line=line, evidence=ev))
    ctx.recorded_calls = types.MethodType(RunContext.recorded_calls, ctx)
    return ctx


def _write(seq, key, line):
    return {"kind": "compdiag:module_attr", "seq": seq, "metadata": {"compdiag": {
        "module": "ViT", "key": key, "value": "True",
        "call": {"filename": "t.py", "lineno": line, "line": f"model.set_{key}(True)"}}}}


def test_the_last_set_between_the_two_compiles_is_the_cause() -> None:
    records = [{"kind": "dynamo_start", "seq": 1, "compile_id": "0/0"},
               _write(5, "grad_checkpointing", 30), _write(7, "grad_checkpointing", 37),
               _write(8, "other", 38),
               {"kind": "dynamo_start", "seq": 9, "compile_id": "0/1"},
               _write(12, "grad_checkpointing", 50)]
    ctx = _ctx(records)
    src = "L['self'].grad_checkpointing"
    found = attribute_write(ctx, 0, "0/1", src, "value")
    assert found is not None and found["call"]["lineno"] == 37
    frame, suffix, explanation, fix = write_words(ctx, found, "self.grad_checkpointing", "fwd")
    assert frame.lineno == 37 and "line 37" in suffix and "before the first compiled" in fix
    # a mode switch is torch's by design; a guard on another attribute has no such set
    assert attribute_write(ctx, 0, "0/1", src, "training") is None
    assert attribute_write(ctx, 0, "0/1", "L['self'].scale", "value") is None


def test_a_backend_recompile_points_at_the_line_that_compiles_again_and_again() -> None:
    """probes44a regional_blocks_fresh_backend_recompile (pytorch#168373): a backend made per
    block at one torch.compile line; the recompile was shown at the block's call."""
    from compdiag.analyses.compile_calls import backend_words, repeated_compile

    def call(line):
        return {"kind": "compdiag:compile_call", "seq": line, "metadata": {"compdiag": {
            "key": "compile", "call": {"filename": "t.py", "lineno": line,
                                       "line": "return torch.compile(b, backend=mk())"}}}}

    ctx = _ctx([call(22), call(22), call(22), call(40)])
    found = repeated_compile(ctx)
    assert found["lineno"] == 22 and found["n"] == 3
    frame, suffix, _, fix = backend_words(ctx, found)
    assert frame.lineno == 22 and "3 times at line 22" in suffix and "once" in fix
    assert repeated_compile(_ctx([call(22), call(40)])) is None


def test_dynamo_traces_a_module_built_in_forward_as_it_does_without_the_wrapper() -> None:
    """probes44g protonet_head_reinit_in_forward: a Linear built inside the compiled forward
    made Dynamo trace the wrapper and fail on capture's own object ("Unexpected type in
    sourceless builder (compdiag.capture.hooks.Capture)") where torch breaks at the
    Parameter constructor; then, run in eager after that break, the wrapper's own frames were
    compiled and recompiled on the attribute's name."""
    from torch._dynamo.utils import counters

    class Learner(torch.nn.Module):
        def forward(self, x):
            self.head = torch.nn.Linear(4, 2)
            return self.head(x)

    def trace() -> tuple[list[str], int]:
        torch._dynamo.reset()
        counters.clear()
        out = torch._dynamo.explain(Learner())(torch.randn(3, 4))
        for _ in range(2):
            torch.compile(Learner(), backend="eager")(torch.randn(3, 4))
        return ([str(b.reason).split("\n")[0] for b in out.break_reasons],
                counters["frames"]["total"])

    plain = trace()
    original = torch.nn.Module.__setattr__
    module_writes.install(_Capture(), lambda: 1, lambda f: f == __file__)
    try:
        wrapped = trace()
    finally:
        torch.nn.Module.__setattr__ = original
        torch._dynamo.reset()
    assert wrapped == plain and not any("compdiag" in r for r in wrapped[0]), (plain, wrapped)


def test_a_comprehension_over_pieces_is_a_loop_not_a_branch() -> None:
    """probes44j serve_microbatch_split_chunks: `[f(c) for c in x.split(8)]` recompiled on
    the chunk count and was said as a Python branch, with torch.where for a fix."""
    from compdiag.analyses.diagnoses.recompiles import _LOOPS

    assert _LOOPS.match("        outs = [self.mlp(c) for c in x.split(8)]")
    assert _LOOPS.match("    for y in range(h):")
    assert not _LOOPS.match("    if any(v for v in xs):")
    assert not _LOOPS.match("    if x.shape[0] > 4:")
