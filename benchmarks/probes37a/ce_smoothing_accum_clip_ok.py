# Token classifier trained with gradient accumulation: weighted, label-smoothed
# cross-entropy with ignore_index for padding, AdamW + StepLR, clip_grad_norm_ whose
# returned norm is logged with .item(). The compiled model is checked against an eager
# copy trained on the same batches.
import copy
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Embedding(50, 16), nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 5))
twin = copy.deepcopy(net)
cnet = torch.compile(net)
class_w = torch.tensor([0.5, 1.0, 2.0, 1.0, 1.5])
loss_fn = nn.CrossEntropyLoss(weight=class_w, label_smoothing=0.1, ignore_index=-100)


def make_opt(m):
    opt = torch.optim.AdamW(m.parameters(), lr=2e-3, weight_decay=0.01)
    return opt, torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)


runs = [(cnet, net, *make_opt(net)), (twin, twin, *make_opt(twin))]
tokens = torch.randint(0, 50, (6, 4, 8, 12))  # updates x micro-batches x batch x seq
labels = torch.randint(0, 5, (6, 4, 8, 12))
labels[..., 9:] = -100  # padding
accum = 4
log = {0: [], 1: []}
for i, (fwd, mod, opt, sched) in enumerate(runs):
    for u in range(6):
        opt.zero_grad(set_to_none=True)
        for k in range(accum):
            logits = fwd(tokens[u, k])
            loss = loss_fn(logits.reshape(-1, 5), labels[u, k].reshape(-1)) / accum
            loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(mod.parameters(), max_norm=1.0)
        opt.step()
        sched.step()
        log[i].append((loss.item() * accum, gnorm.item()))
for u, ((lc, gc), (le, ge)) in enumerate(zip(log[0], log[1])):
    print(f"update {u} loss {lc:.5f} grad_norm {gc:.5f}")
print("max loss diff < 1e-5:", max(abs(a[0] - b[0]) for a, b in zip(log[0], log[1])) < 1e-5)
print("max grad-norm diff < 1e-5:", max(abs(a[1] - b[1]) for a, b in zip(log[0], log[1])) < 1e-5)
