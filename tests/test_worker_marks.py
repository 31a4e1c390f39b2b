"""analyses/worker_marks.py: a `mark_dynamic` made where a DataLoader builds the batch, read
from the program's source (probes46b collate_mark_dynamic_workers_mlp: the recompiles were put
on `dynamic=False`, with "a `mark_dynamic` of the size is kept under it")."""
from __future__ import annotations

import pytest

from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.worker_marks import worker_mark

PROGRAM = '''import torch
from torch.utils.data import DataLoader, Dataset


class Docs(Dataset):
    def __getitem__(self, i):
        x = torch.ones(i + 1)
        {getitem_mark}
        return x


def collate(batch):
    t = torch.nn.utils.rnn.pad_sequence(batch, batch_first=True)
    {collate_mark}
    return t


loader = DataLoader(Docs(), batch_size=2{loader_args})
for tokens in loader:
    {main_mark}
    out = model(tokens)
'''


class _Ctx:
    def __init__(self, text: str) -> None:
        self.text = text

    def source_text(self, filename):
        return self.text

    def source_lines(self, filename):
        return self.text.splitlines()


def _found(**parts: str):
    fields = {"getitem_mark": "pass", "collate_mark": "pass", "loader_args": "",
              "main_mark": "pass", **parts}
    text = PROGRAM.format(**fields)
    lineno = text.splitlines().index("    out = model(tokens)") + 1
    return worker_mark(_Ctx(text), UserFrame("prog.py", lineno, "    out = model(tokens)"))


MARK = "torch._dynamo.mark_dynamic(t, 1)"


@pytest.mark.parametrize("args, where", [
    (", collate_fn=collate, num_workers=2", "worker process (num_workers=2)"),
    (", collate_fn=collate, num_workers=n_workers", "num_workers=n_workers"),
    (", collate_fn=collate, pin_memory=True", "pin_memory=True"),
])
def test_a_collate_mark_that_cannot_reach_the_call_is_found(args, where):
    found = _found(collate_mark=MARK, loader_args=args)
    assert found is not None and where in found["where"], found
    assert found["lineno"] == 14 and found["dim"] == "1" and found["arg"] == "tokens"
    assert found["mark"] == MARK


def test_a_sample_marked_in_getitem_is_stacked_into_a_new_batch():
    found = _found(getitem_mark="torch._dynamo.mark_dynamic(x, 0)")
    assert found is not None and "__getitem__" in found["where"] and found["lineno"] == 8


@pytest.mark.parametrize("parts", [
    {"collate_mark": MARK, "loader_args": ", collate_fn=collate"},  # main process: kept
    {"collate_mark": MARK, "loader_args": ", collate_fn=collate, num_workers=0"},
    {"collate_mark": MARK, "loader_args": ", collate_fn=collate, num_workers=2",
     "main_mark": "torch._dynamo.mark_dynamic(tokens, 1)"},  # marked again where it is used
    {},  # no mark at all
])
def test_a_mark_that_reaches_the_call_or_none_is_not_said(parts):
    assert _found(**parts) is None
