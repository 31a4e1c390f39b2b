"""DDP training of a tiny transformer LM on the CPU (gloo, 2 ranks). Validation runs on every
rank, each on its half of the validation batch, through a torch.compile'd view of the model
(compiled "to make eval fast"), and the losses are averaged with an all_reduce: every rank
compiles the eval graph at the same point, so none waits for another's compile. The job runs
on a fresh node: each run gets its own empty Inductor cache (TORCHINDUCTOR_CACHE_DIR set to a
new temporary directory, as CI jobs do). The process group
uses a short timeout.

Source: karpathy/nanochat PR #722 ("multi-node torch.compile warmup, fixes NCCL watchdog
timeouts": a rank that compiles lazily, or without a warm cache, lets the others race ahead and
their collectives time out; the fix compiles on every rank before the loop); pytorch/pytorch
issue #97191 / #104506 (the process-group timeout); torchtitan/nanoGPT's rank-0-only evaluation.

Run: torchrun --standalone --nproc-per-node 2 alleval_compile_ok.py
"""
import datetime
import os
import tempfile

os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="inductor-job-")

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

V, D, T = 128, 64, 32


class TinyLM(nn.Module):
    def __init__(self, layers=1):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        layer = nn.TransformerEncoderLayer(D, 4, 4 * D, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(D, V)

    def forward(self, tokens):
        return self.head(self.blocks(self.emb(tokens)))


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = TinyLM()
    ddp = DDP(model)
    eval_model = torch.compile(model)
    opt = torch.optim.AdamW(ddp.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(rank)
    val = torch.randint(0, V, (16, T + 1), generator=torch.Generator().manual_seed(99))

    for step in range(6):
        batch = torch.randint(0, V, (8, T + 1), generator=g)
        logits = ddp(batch[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, V), batch[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 3 == 2:
            part = val.chunk(dist.get_world_size())[rank]
            with torch.no_grad():
                vl = F.cross_entropy(eval_model(part[:, :-1]).reshape(-1, V), part[:, 1:].reshape(-1))
            dist.all_reduce(vl, op=dist.ReduceOp.SUM)
            if rank == 0:
                print(f"step {step} train {loss.item():.3f} val {vl.item() / 2:.3f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
