"""pytorch/pytorch#147756 ("`torch.compile(flex_attention, dynamic=True)` fails with
`LoweringException`", https://github.com/pytorch/pytorch/issues/147756, open), reached here
without asking for dynamic shapes. A small attention model anneals its softmax temperature
each step; the score_mod passed to FlexAttention (CPU, inference) reads the temperature, a
Python float. Step 0 compiles and runs. At step 1 the float has changed, Dynamo recompiles with
it as a dynamic (symbolic) float, and Inductor's lowering of the flex_attention subgraph fails:
"InductorError: LoweringException: RuntimeError: unbacked_bindings ... While executing
%_local_scalar_dense", "Found from" the flex_attention call in the attention helper. Eager runs
every step."""
import torch
from torch.nn.attention.flex_attention import flex_attention

torch.manual_seed(0)


def attend(q, k, v, temperature):
    def score_mod(score, b, h, q_idx, kv_idx):
        return score / temperature

    return flex_attention(q, k, v, score_mod=score_mod)


class TinyAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(32, 96)
        self.temperature = 2.0

    def forward(self, x):
        q, k, v = self.qkv(x).view(1, -1, 3, 2, 16).permute(2, 0, 3, 1, 4)
        return attend(q, k, v, self.temperature)


model = TinyAttention()
compiled = torch.compile(model)
with torch.no_grad():
    for step in range(4):
        model.temperature = 2.0 * 0.9 ** step
        x = torch.randn(64, 32)
        print(step, "eager", round(model(x).sum().item(), 4), "compiled", round(compiled(x).sum().item(), 4))
