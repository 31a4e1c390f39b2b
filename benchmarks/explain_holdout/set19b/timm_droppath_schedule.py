"""timm 1.0.31 (torch 2.13.0), timm.create_model("vit_tiny_patch16_224", pretrained=False,
img_size=32, patch_size=8, depth=4, drop_path_rate=0.1): a ViT with stochastic depth.

A training loop with a stochastic-depth schedule: the drop-path rate grows linearly with the
step (as in DeiT III / ConvNeXt-style recipes), so before each step the loop writes a new
`drop_prob` into every timm DropPath module of the compiled model. timm's drop_path reads it as
a Python float, `keep_prob = 1 - drop_prob` and `x.new_empty(shape).bernoulli_(keep_prob)`;
Dynamo cannot keep a float that feeds bernoulli_'s probability symbolic, so it guards on its
value, `(1.0 + ((-1)*self._modules['blocks']._modules['1']._modules['drop_path1'].drop_prob))
== 0.98  # random_tensor = x.new_empty(shape).bernoulli_(keep_prob)`, and the whole ViT
forward (and its backward) recompiles at every step, until the recompile limit (8) is hit and
the model runs in eager for the rest of training. pytorch/pytorch#119778 ("torch.compile
doesn't convert all input scalar types to symbolic values") reports floats that stay constants
of the graph; PR #138868 ("specialize all backed symfloats that we fail to tensorify away") is
the rule that specializes this one.
"""
import timm
import torch
import torch.nn.functional as F
from timm.layers import DropPath

torch.manual_seed(0)
model = timm.create_model("vit_tiny_patch16_224", pretrained=False, num_classes=10,
                          img_size=32, patch_size=8, depth=4, drop_path_rate=0.1)
drop_paths = [m for m in model.modules() if isinstance(m, DropPath)]
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

total_steps = 10
for step in range(total_steps):
    rate = 0.1 + 0.1 * step / total_steps  # stochastic depth grows during training
    for i, dp in enumerate(drop_paths):
        dp.drop_prob = rate * (i + 1) / len(drop_paths)
    images = torch.randn(4, 3, 32, 32)
    labels = torch.randint(0, 10, (4,))
    loss = F.cross_entropy(compiled(images), labels)
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} drop_path_rate {rate:.2f} loss {loss.item():.4f}")
