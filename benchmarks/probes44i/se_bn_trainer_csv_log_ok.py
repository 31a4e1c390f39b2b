"""Small tabular classifier trained with a compiled model; the forward keeps an
in-place tensor buffer counter and BatchNorm running stats; python counters (an int on
the Trainer object and a global) are bumped outside the compiled call; the loop logs to a file handler AND stderr, writes one CSV row per step, appends a
run log and measures time.  Correct program: compiles cleanly, nothing to flag."""
import csv, logging, os, sys, time
import torch
import torch.nn as nn

OUT = os.environ.get("PROBE_OUT", "probe_out")
os.makedirs(OUT, exist_ok=True)
N_FORWARD = 0

log = logging.getLogger("trainer")
log.setLevel(logging.INFO)
fh = logging.FileHandler(os.path.join(OUT, "train.log"), mode="w")
fh.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
sh = logging.StreamHandler(sys.stderr)
sh.setFormatter(logging.Formatter("[trainer] %(message)s"))
log.addHandler(fh); log.addHandler(sh)


class TabNet(nn.Module):
    def __init__(self, d_in=16, d_h=32, n_cls=3):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_h)
        self.bn = nn.BatchNorm1d(d_h)
        self.fc2 = nn.Linear(d_h, n_cls)
        self.register_buffer("seen", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        self.seen.add_(x.shape[0])
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


class Trainer:
    def __init__(self, model):
        self.cmodel = torch.compile(model)
        self.calls = 0

    def forward(self, x):
        global N_FORWARD
        N_FORWARD += 1
        self.calls += 1
        return self.cmodel(x)


def main():
    torch.manual_seed(0)
    model = TabNet()
    trainer = Trainer(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    X = torch.randn(256, 16)
    y = (X[:, :3].sum(1) > 0).long() + (X[:, 3] > 1).long()
    t0 = time.perf_counter()
    with open(os.path.join(OUT, "metrics.csv"), "w", newline="") as f, \
         open(os.path.join(OUT, "runs.txt"), "a") as runs:
        w = csv.writer(f)
        w.writerow(["step", "loss", "acc"])
        for step in range(12):
            idx = torch.arange(step * 20, step * 20 + 32) % 256
            logits = trainer.forward(X[idx])
            loss = nn.functional.cross_entropy(logits, y[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            acc = (logits.argmax(1) == y[idx]).float().mean().item()
            w.writerow([step, f"{loss.item():.5f}", f"{acc:.4f}"])
            runs.write(f"step {step}\n")
            if step % 4 == 0:
                log.info("step %d loss %.4f acc %.3f", step, loss.item(), acc)
    elapsed = time.perf_counter() - t0
    print(f"calls={trainer.calls} global={N_FORWARD} seen={int(model.seen)}")
    print(f"running_mean_sum={model.bn.running_mean.sum().item():.5f} "
          f"num_batches_tracked={int(model.bn.num_batches_tracked)}")
    print(f"final_loss={loss.item():.5f} timed={elapsed > 0}")
    log.info("done")


if __name__ == "__main__":
    main()
