"""Classifier whose compiled forward reads a feature flag from the environment
(`os.environ.get("USE_TTA")`, test-time augmentation by horizontal flip).  The script
trains with the flag unset (off), then switches it on with os.environ for evaluation, as
config-by-env code does.  Under torch.compile the read of an env var that is ABSENT at compile
time is baked into the graph with no guard on its absence, so evaluation silently runs WITHOUT TTA (eager gives different logits).
Also logs to a file + stderr and writes per-phase results."""
import logging, os, sys
import torch
import torch.nn as nn

OUT = os.environ.get("PROBE_OUT", "probe_out")
os.makedirs(OUT, exist_ok=True)
log = logging.getLogger("tta")
log.setLevel(logging.INFO)
log.addHandler(logging.FileHandler(os.path.join(OUT, "tta.log"), mode="w"))
log.addHandler(logging.StreamHandler(sys.stderr))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 6, 3, padding=1)
        self.fc = nn.Linear(6, 3)

    def features(self, x):
        return torch.relu(self.conv(x)).mean((2, 3))

    def forward(self, x):
        logits = self.fc(self.features(x))
        if os.environ.get("USE_TTA", "0") == "1":
            logits = 0.5 * (logits + self.fc(self.features(x.flip(-1))))
        return logits


def main():
    torch.manual_seed(4)
    net = Net()
    cnet = torch.compile(net)
    opt = torch.optim.Adam(net.parameters(), lr=3e-2)
    x = torch.randn(32, 1, 8, 8)
    y = (x[:, 0, :, :4].mean((1, 2)) > 0).long() + (x[:, 0].std((1, 2)) > 1).long()
    for step in range(10):
        loss = nn.functional.cross_entropy(cnet(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    log.info("train done loss=%.4f", loss.item())
    with torch.no_grad():
        plain = cnet(x)
        os.environ["USE_TTA"] = "1"          # evaluation phase: enable test-time augmentation
        tta = cnet(x)
    diff = (tta - plain).abs().max().item()
    print(f"train_loss={loss.item():.5f}")
    print(f"tta_vs_plain_maxdiff={diff:.5f}")
    print(f"tta_acc={(tta.argmax(1) == y).float().mean().item():.4f}")
    with open(os.path.join(OUT, "eval.txt"), "w") as f:
        f.write(f"{diff:.5f}\n")
    log.info("eval done")


if __name__ == "__main__":
    main()
