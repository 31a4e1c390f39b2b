"""A setting the program turned on is named where the failure's words implicate it. probes32d
lstm_allow_rnn_forecast: `torch._dynamo.config.allow_rnn = True` (line 5) made Dynamo trace an
LSTM, and the compile failed in aten.mkldnn_rnn_layer; explain sent the user to Inductor
(aot_eager failed too) and never named the setting, without which the program ran."""

from __future__ import annotations

from test_explain import Store

SOURCE = ("import torch\n" * 4 + "torch._dynamo.config.allow_rnn = True\n"
          + "".join(f"line_{i} = {i}\n" for i in range(6, 40)))


def _failure(s: Store, op: str) -> None:
    s.user.write_text(SOURCE)
    s.compile("0/0", lineno=15)
    s.failure("0/0", stage="aot", exc_type="TypeError",
              message=f"expected Tensor() for op: torch.ops.aten.{op}.default",
              filename=str(s.user), lineno=16, line="line_16 = 16")


def test_a_failure_in_an_rnn_op_names_allow_rnn_and_leads_the_fix_with_it(tmp_path):
    s = Store(tmp_path)
    _failure(s, "mkldnn_rnn_layer")
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "with `torch._dynamo.config.allow_rnn = True` set at line 5" in d["reason"], d
    assert d["fix"].startswith("The program sets `torch._dynamo.config.allow_rnn = True`")


def test_a_setting_the_failure_does_not_implicate_is_not_named(tmp_path):
    s = Store(tmp_path)
    _failure(s, "convolution")
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "allow_rnn" not in d["reason"] and "allow_rnn" not in d["fix"], d


def test_a_legacy_typed_constructor_at_a_dynamo_failure_is_named(tmp_path):
    """set25/gpu legacy_noise_floattensor (pytorch/pytorch#196467): `x +
    torch.cuda.FloatTensor(x.size()).normal_(0, s)` failed while Dynamo traced it ("Attempting
    to broadcast a dimension of length 2"): Dynamo reads the size as data. The reason had
    torch's words only and the fix said to check the line in eager, where it runs."""
    s = Store(tmp_path)
    code = "return x + torch.cuda.FloatTensor(x.size()).normal_(0, self.sigma)"
    s.user.write_text(s.user.read_text().replace("line_18 = 18\n", code + "\n"))
    s.compile("0/0", lineno=15)
    s.failure("0/0", stage="dynamo", exc_type="TorchRuntimeError",
              message="RuntimeError: Attempting to broadcast a dimension of length 2 at -1!",
              filename=str(s.user), lineno=18, line=code,
              traceback=f'from user code:\n  File "{s.user}", line 18, in forward\n    {code}\n')
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "legacy typed constructor" in d["explanation"], d["explanation"]
    assert d["fix"].startswith("Use the current constructors: `torch.empty("), d["fix"]
