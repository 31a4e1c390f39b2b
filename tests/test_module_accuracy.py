"""A compiled module whole against eager (capture/module_accuracy.py, issue 29 §4).

probes28a encoder_padmask_pool, blind: nn.TransformerEncoder in eval with a padding mask gave
other predictions compiled than eager, and `--check-accuracy` said "1 compiled graph matches
eager": the graph was right, the path was not (eager's fast path zeroes the padded positions,
and the encoder asks `torch.compiler.is_compiling()` to skip it when compiled). The module is
now replayed whole in eager when that cannot change the program's state, and the library
code that takes another path when compiled is named at the user line that called it. Real
Dynamo with the eager backend (no Inductor)."""

from __future__ import annotations

import torch
import torch.nn as nn

from compdiag.capture import module_accuracy
from compdiag.capture.function_accuracy import _code_refusal


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(50, 16, padding_idx=0)
        layer = nn.TransformerEncoderLayer(16, nhead=2, dim_feedforward=32, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1)
        self.drop = nn.Dropout(0.1)

    def forward(self, tokens):
        h = self.encoder(self.embed(tokens), src_key_padding_mask=tokens == 0)  # ENCODER
        return self.drop(h).mean(dim=1)


def _tokens() -> torch.Tensor:
    tokens = torch.zeros(3, 8, dtype=torch.long)
    for i, n in enumerate([8, 5, 3]):
        tokens[i, :n] = torch.arange(1, n + 1)
    return tokens


def _line(text: str) -> int:
    return next(i for i, line in enumerate(open(__file__).read().splitlines(), 1)
                if text in line and "def _line" not in line and "_line(" not in line)


def test_a_library_path_taken_only_when_compiled_is_named_at_the_users_call(checks) -> None:
    torch.manual_seed(0)
    model = Classifier().eval()
    tokens = _tokens()
    with torch.no_grad():
        out = torch.compile(model, backend="eager")(tokens)
        eager = model(tokens)
    assert not torch.allclose(out, eager), "this torch takes the same path compiled"
    whole = [c for c in checks if any(o.detail.get("verdict") == "compiled_path"
                                      for o in c.outputs)]
    assert len(whole) == 1, checks
    (o,) = whole[0].outputs
    assert not o.ok and o.detail["function"] == "Classifier"
    assert o.detail["compiled_path"].startswith("TransformerEncoder.forward (transformer.py:")
    assert "asks whether it is being compiled" in o.detail["compiled_path"]
    frame = whole[0].divergent_node["user_frame"]
    assert frame["lineno"] == _line("# ENCODER") and frame["filename"] == __file__


def test_a_right_model_in_eval_is_replayed_and_reports_nothing(checks, monkeypatch) -> None:
    from compdiag.capture.function_accuracy import FunctionChecker

    replayed: list = []
    original = FunctionChecker.check
    monkeypatch.setattr(FunctionChecker, "check",
                        lambda self, fn, *a, **k: replayed.append(fn) or original(
                            self, fn, *a, **k))
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.ReLU()).eval()
    compiled = torch.compile(model, backend="eager")
    x = torch.randn(5, 4)
    stats = model[1].running_mean.clone()
    for _ in range(3):  # calls 1 and 2 are checked, 3 is not
        compiled(x)
    assert replayed == [model, model]
    assert all(c.ok for c in checks), checks
    assert torch.equal(model[1].running_mean, stats)


def test_a_model_the_replay_could_change_is_not_replayed() -> None:
    """Training mode, a hook, an argument that is an object, a forward that stores state:
    each would let a second run change what the program computes."""
    def code(fn, ignore):
        return _code_refusal(fn, set(), (torch.optim.Optimizer,), 3, ignore)

    class Counts(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin, self.calls = nn.Linear(2, 2), 0

        def forward(self, x):
            self.calls += 1
            return self.lin(x)

    x = torch.ones(1, 2)
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
    assert module_accuracy.refusal(model, (x,), {}, code) == "a submodule is in training mode"
    model.eval()
    assert module_accuracy.refusal(model, (x,), {}, code) is None
    handle = model[0].register_forward_hook(lambda *a: None)
    assert module_accuracy.refusal(model, (x,), {}, code) == "a hook is registered on Linear"
    handle.remove()
    assert module_accuracy.refusal(model, (x, object()), {}, code) == \
        "an argument is a object"
    assert module_accuracy.refusal(Counts().eval(), (x,), {}, code).startswith(
        "Counts.forward: it stores state")
    # `self.drop(h)` in eval is a child module's call, not a random draw
    assert module_accuracy.refusal(Classifier().eval(), (_tokens(),), {}, code) is None


def test_the_replay_runs_from_the_attributes_before_the_call_and_leaves_those_after() -> None:
    m = nn.Linear(2, 2)
    m.seen = 1
    before = module_accuracy.attributes(m)
    m.seen, m.extra = 2, "added by the compiled call"
    with module_accuracy.attributes_as(before, m):
        assert m.seen == 1 and not hasattr(m, "extra")
    assert m.seen == 2 and m.extra == "added by the compiled call"


_HUBER = {"delta": 1.0}


@torch._dynamo.allow_in_graph
def _robust(r):
    d = _HUBER["delta"]
    return torch.where(r.abs() <= d, 0.5 * r * r, d * (r.abs() - 0.5 * d))


class _Regressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(3, 1)

    def forward(self, x, y):
        return _robust(self.lin(x) - y).mean()


def test_a_model_in_training_mode_whose_layers_never_read_it_is_replayed(checks) -> None:
    """probes36c allow_in_graph_stale_global, blind: a regressor never put in eval mode kept a
    global's first value compiled (allow_in_graph: nothing it reads is guarded) and
    `--check-accuracy` said nothing, since only eval-mode calls were replayed. A model whose
    layers never read `training` is the same model in either mode: replayed, the difference
    found on call 2. Dropout, BatchNorm and attention read it, and stay unreplayed."""
    assert not module_accuracy.training(nn.Sequential(nn.Linear(2, 2), nn.Embedding(3, 2)))
    for layer in (nn.Dropout(), nn.BatchNorm1d(2), nn.MultiheadAttention(4, 2)):
        assert module_accuracy.training(nn.Sequential(nn.Linear(2, 2), layer))
    torch.manual_seed(0)
    model = _Regressor()
    fn = torch.compile(model, backend="aot_eager")  # AOTAutograd traces the marked helper
    x, y = torch.randn(8, 3), 3 * torch.randn(8, 1)
    try:
        with torch.no_grad():
            fn(x, y)
            assert not [c for c in checks if not c.ok]
            _HUBER["delta"] = 0.25
            fn(x, y)
    finally:
        _HUBER["delta"] = 1.0
    (whole,) = [c for c in checks if not c.ok]
    assert whole.outputs[0].detail["verdict"] == "changed_after_compile"
