"""Evaluate a random-init baseline, then load converted weights and re-evaluate.

The checkpoint comes from a GPT-2-style "Conv1D" layout ([in, out]); the
converter transposes with .t() (a non-contiguous view) and the weights are
loaded with load_state_dict(..., assign=True) to avoid a copy.  assign=True
swaps in the transposed views, so the compiled forward sees parameters with
new strides and Dynamo recompiles after load_state_dict, although shapes and
dtypes are unchanged.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLPBlock(nn.Module):
    def __init__(self, d=64, hidden=256):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, hidden)
        self.c_proj = nn.Linear(hidden, d)

    def forward(self, x):
        return x + self.c_proj(F.gelu(self.c_fc(self.ln(x))))


def conv1d_checkpoint(model, seed=3):
    """Fake an upstream checkpoint stored in Conv1D layout ([in, out])."""
    g = torch.Generator().manual_seed(seed)
    ckpt = {}
    for k, v in model.state_dict().items():
        t = torch.randn(v.shape, generator=g) * 0.02
        ckpt[k] = t.t().contiguous() if v.dim() == 2 else t
    return ckpt


def convert(ckpt):
    # Conv1D [in, out] -> nn.Linear [out, in]
    return {k: (v.t() if v.dim() == 2 else v) for k, v in ckpt.items()}


@torch.no_grad()
def evaluate(fwd, batches):
    return sum(fwd(x).pow(2).mean().item() for x in batches) / len(batches)


torch._dynamo.config.force_parameter_static_shapes = False


def main():
    torch.manual_seed(0)
    model = MLPBlock().eval()
    fwd = torch.compile(model)
    g = torch.Generator().manual_seed(7)
    batches = [torch.randn(8, 16, 64, generator=g) for _ in range(4)]

    print(f"random-init energy {evaluate(fwd, batches):.5f}")
    sd = convert(conv1d_checkpoint(model))
    model.load_state_dict(sd, assign=True)
    print(f"pretrained energy  {evaluate(fwd, batches):.5f}")


if __name__ == "__main__":
    main()
