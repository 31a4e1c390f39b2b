"""Graph break: torch.distributed.nn.all_gather (the autograd-aware gather) inside a compiled
contrastive loss. torch raises on purpose under torch.compile ("not supported under
torch.compile. Use ... instead"); Dynamo reports the exception it observed, and the frame runs
in eager. The fix is torch's own advice, the functional collective (probes48a
clip_loss_gather_with_grad). At world size 1 on gloo."""
import os
import tempfile

import torch
import torch.distributed as dist
import torch.distributed.nn

dist.init_process_group("gloo", rank=0, world_size=1,
                        init_method="file://" + os.path.join(tempfile.mkdtemp(), "pg"))


@torch.compile(backend="eager")
def contrastive(img, txt):
    every_txt = torch.cat(torch.distributed.nn.all_gather(txt), dim=0)  # <- diagnosis
    logits = img @ every_txt.T
    return torch.nn.functional.cross_entropy(logits, torch.arange(img.shape[0]))


img = torch.randn(4, 8, requires_grad=True)
loss = contrastive(img, torch.randn(4, 8, requires_grad=True))
loss.backward()
dist.destroy_process_group()
print(f"{loss.item():.3f}")
