# Model-only compile; the loop does gradient accumulation, bf16 autocast on CPU,
# clip_grad_norm_, AdamW with a no-decay group for biases/norms, a LambdaLR
# warmup + cosine schedule, early stopping on .item() and a mid-run
# state_dict save/restore of the best weights.
import copy
import math
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(16, 64), torch.nn.GELU(), torch.nn.LayerNorm(64), torch.nn.Linear(64, 4)
)
decay = [p for n, p in model.named_parameters() if n.endswith("weight") and p.dim() > 1]
no_decay = [p for n, p in model.named_parameters() if not (n.endswith("weight") and p.dim() > 1)]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05},
                         {"params": no_decay, "weight_decay": 0.0}], lr=3e-3)
WARMUP, TOTAL, ACCUM = 2, 8, 2
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lambda s: min(1.0, (s + 1) / WARMUP) * 0.5 * (1 + math.cos(math.pi * s / TOTAL)))
cmodel = torch.compile(model)
data = [(torch.randn(16, 16), torch.randint(0, 4, (16,))) for _ in range(TOTAL * ACCUM)]

best, best_state, patience = float("inf"), None, 2
for step in range(TOTAL):
    opt.zero_grad(set_to_none=True)
    total = 0.0
    for micro in range(ACCUM):
        x, y = data[step * ACCUM + micro]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = cmodel(x)
        loss = torch.nn.functional.cross_entropy(logits.float(), y) / ACCUM
        loss.backward()
        total += loss.item()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step()
    sched.step()
    print(f"step {step} loss {total:.3f} norm {norm.item():.3f} lr {sched.get_last_lr()[0]:.5f}")
    if total < best - 1e-3:
        best, best_state, patience = total, copy.deepcopy(model.state_dict()), 2
    else:
        patience -= 1
        if patience == 0:
            print("early stop")
            break
model.load_state_dict(best_state)
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("restored best", round(best, 3), cmodel(data[0][0]).float().argmax(-1).tolist())
