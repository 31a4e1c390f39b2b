"""Evaluating an int8 weight/activation fake-quant MLP through a hand-registered operator.

The team wraps its row-wise int8 fake-quantisation as a torch.library operator so the
same op name can later be backed by a vendor kernel. The kernel needs 64-byte aligned
rows, so the Python implementation checks the pointer and realigns when needed. The
implementation is registered under the CompositeImplicitAutograd key.

Source: PyTorch test test/dynamo/test_aot_autograd.py::
AotAutogradFallbackTests::test_data_ptr_access_fails_in_forward.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)

qlib = torch.library.Library("qkern", "DEF")
qlib.define("fake_quant_rows(Tensor x) -> Tensor")


def _fake_quant_rows(x):
    # vendor int8 GEMM wants 64-byte aligned rows: realign when the view is offset
    if x.data_ptr() % 64 != 0:
        x = x.clone()
    scale = x.abs().amax(dim=-1, keepdim=True).clamp_min(1e-8) / 127.0
    return torch.round(x / scale).clamp(-127, 127) * scale


qlib.impl("fake_quant_rows", _fake_quant_rows, "CompositeImplicitAutograd")


class QuantMLP(nn.Module):
    def __init__(self, d_in=64, d_hidden=128, n_classes=10):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, n_classes)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        h = torch.ops.qkern.fake_quant_rows(h)
        return self.fc2(h)


model = QuantMLP().eval()
cmodel = torch.compile(model)

correct = total = 0
with torch.no_grad():
    for batch in range(4):
        x = torch.randn(32, 64)
        y = (x[:, :10].argmax(dim=-1))
        logits = cmodel(x)
        correct += (logits.argmax(-1) == y).sum().item()
        total += y.numel()
        print(f"batch {batch}: mean |logit|={logits.abs().mean().item():.4f}")
print(f"accuracy {correct}/{total}")
