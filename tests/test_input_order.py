"""unordered_loops.ordering_set: a cache key that changed only in the order of the same inputs
is a loop over a set in the program (probes46b adamw_decay_set_groups_cache: an optimizer's
parameter groups built from sets of names; every warm start missed, said as "expected")."""
from __future__ import annotations

from compdiag.analyses.caches import Change
from compdiag.analyses.cache_words import INPUT_ORDER_EXPLANATION
from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.unordered_loops import ordering_set

SOURCE = '''import torch


def groups(model):
    decay, no_decay = set(), set()
    for name, p in model.named_parameters():
        (no_decay if name.endswith("bias") else decay).add(name)
    params = dict(model.named_parameters())
    return [{"params": [params[n] for n in decay]}, {"params": [params[n] for n in no_decay]}]


@torch.compile
def step():
    opt.step()
'''


class _Ctx:
    compiles = {"0/0": {}, "1/0": {}}

    def code_row(self, cid):
        return {"0/0": {"filename": "prog.py", "co_name": "step", "lineno": 12},
                "1/0": {"filename": "optimizer.py", "co_name": "_step", "lineno": 5}}[cid]

    def resolve(self, filename):
        return filename

    def source_text(self, filename):
        return SOURCE if filename == "prog.py" else None

    def frame(self, path, line, evidence=None):
        return UserFrame(path, line, SOURCE.splitlines()[line - 1])


A, B, C = (f"TensorMetadata(dtype=torch.float32, shape=torch.Size([{n}]))" for n in (4, 8, 16))


def _inputs(*pairs):
    return [Change(f"example_inputs[{k}]", b, a, "") for k, (b, a) in enumerate(pairs)]


def test_the_same_inputs_in_another_order_are_the_set_the_program_iterates():
    found = ordering_set(_Ctx(), "1/0", _inputs((A, B), (B, C), (C, A)))
    assert found is not None, found
    frame, name, explanation = found
    assert (frame.lineno, name, explanation) == (9, "decay", INPUT_ORDER_EXPLANATION)


def test_other_inputs_or_other_components_are_not_an_order():
    assert ordering_set(_Ctx(), "1/0", _inputs((A, B), (B, C))) is None  # A gone, C new
    assert ordering_set(_Ctx(), "1/0", _inputs((A, B))) is None  # one input changed
    moved = _inputs((A, B), (B, A)) + [Change("inductor_config[x]", "1", "2", "")]
    assert ordering_set(_Ctx(), "1/0", moved) is None


MODULE = '''import torch

ACTIVE = {"user", "item", "category"}


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.active = ACTIVE

    def forward(self, ids):
        return sum(ids[name] for name in self.active)
'''


class _ModuleCtx(_Ctx):
    compiles = {"0/0": {}}

    def code_row(self, cid):
        return {"filename": "prog.py", "co_name": "forward", "lineno": 11}

    def source_text(self, filename):
        return MODULE

    def frame(self, path, line, evidence=None):
        return UserFrame(path, line, MODULE.splitlines()[line - 1])


def test_a_graph_traced_in_another_order_is_the_set_an_attribute_holds():
    """probes47a ctr_feature_set_cache_miss: `self.active = ACTIVE`, a module's set of feature
    names, iterated in forward; the miss was information with no cause."""
    found = ordering_set(_ModuleCtx(), "0/0", [Change("gm", "a", "b",
                                                      "gm: the same operations in another order")])
    assert found is not None and found[0].lineno == 12 and found[1] == "self.active", found
