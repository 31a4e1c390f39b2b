"""autograd's "modified by an inplace operation" traced to the tensor and the line that wrote it.
probes32b moco_momentum_enqueue: the compiled forward saved the MoCo queue buffer for
backward and `self.queue[:, ptr:ptr + n] = keys.T` (line 31) wrote it before backward; explain
said torch's words at `loss.backward()` (line 55) and sent the user to Inductor."""

from __future__ import annotations

from types import SimpleNamespace

from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.inplace_version import written_saved_tensor

MSG = ("one of the variables needed for gradient computation has been modified by an inplace "
       "operation: [torch.FloatTensor [32, 128]] is at version 1; expected version 0 instead.")
SRC = ["class MoCo:", "    def enqueue(self, keys):", "        ptr = int(self.queue_ptr)",
       "        self.queue[:, ptr:ptr + 16] = keys.T", "        self.queue_ptr[0] = ptr + 16",
       "    def forward(self, q):", "        return q @ self.queue.clone()"]


def _ctx(guards: dict) -> SimpleNamespace:
    return SimpleNamespace(run_id=1, r=SimpleNamespace(guard_values=lambda run, cid: guards),
                           code_lines=lambda path: SRC if path == "/m.py" else None,
                           frame=lambda path, n, evidence=None: UserFrame(path, n, SRC[n - 1],
                                                                         evidence))


def test_the_input_of_the_errors_shape_and_its_in_place_write_are_found():
    guards = {"L['self']._buffers['queue'].size()[0]": "32",
              "L['self']._buffers['queue'].size()[1]": "128",
              "L['self']._buffers['queue_ptr'].size()[0]": "1",
              "L['q'].size()[0]": "16", "L['q'].size()[1]": "32"}
    found = written_saved_tensor(_ctx(guards), ["0/0"], MSG, ["/m.py"])
    assert found["name"] == "self.queue" and found["frame"].lineno == 4, found
    assert found["shape"] == "[32, 128]" and found["version"] == "0 -> 1"


def test_nothing_is_claimed_without_a_single_written_input_of_that_shape():
    assert written_saved_tensor(_ctx({}), ["0/0"], MSG, ["/m.py"]) is None
    three = {"L['w'].size()[0]": "32", "L['w'].size()[1]": "128", "L['w'].size()[2]": "2"}
    assert written_saved_tensor(_ctx(three), ["0/0"], MSG, ["/m.py"]) is None
    assert written_saved_tensor(_ctx({}), ["0/0"], "another error", ["/m.py"]) is None


def test_the_in_place_write_on_a_graph_input_leads_for_that_error_only():
    """probes46c adapter_inplace_norm_sysexit: the program caught the backward's error (no
    failure row: the program's exception is the evidence) and explain put it at
    `loss.backward()`; the in-place write on the compiled graph's input is the cause."""
    from compdiag.analyses.locate import overwritten_lines

    nodes = [{"filename": "/m.py", "lineno": 27, "line": "side = interp(h)",
              "call": "torch.nn.functional.interpolate(l_h_, size = (8, 8))"},
             {"filename": "/m.py", "lineno": 28, "line": "h.sub_(self.shift)",
              "call": "l_h_.sub_(l_self_parameters_shift_);  l_h_ = None"}]
    ctx = SimpleNamespace(compiles=("0/0",), dynamo_nodes=lambda cid: nodes)
    assert [f["lineno"] for f in overwritten_lines(ctx, None, MSG)] == [28]
    assert overwritten_lines(ctx, None, "RuntimeError: shape mismatch") == []
