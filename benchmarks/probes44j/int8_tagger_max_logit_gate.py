"""On-device multi-label audio tagger with int8-quantized logits. A clip is
"untagged" when its largest int8 logit is below zero; the gate and the per-clip
top tag are computed by a compiled post-processing function.

Source: pytorch/pytorch#191499 ("[Inductor][CPU] torch.compile returns 0 for short
positive uint8/int8 amin reductions", 2026; a comment shows x86 int8 max/argmax
of all-negative rows with >= 16 elements are wrong too).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
NUM_TAGS = 24


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(40, 64), nn.ReLU(), nn.Linear(64, NUM_TAGS))
        self.net[2].bias.data.fill_(-2.0)  # tags are rare: logits are mostly negative

    def forward(self, feats):
        return self.net(feats)


def quantize(logits, scale=0.05):
    return torch.clamp(torch.round(logits / scale), -128, 127).to(torch.int8)


@torch.compile
def postprocess(q_logits):
    best = q_logits.max(dim=-1)
    tagged = best.values >= 0
    return best.values, best.indices, tagged


def main():
    model = Tagger().eval()
    with torch.no_grad():
        feats = torch.randn(12, 40)
        q = quantize(model(feats))
    best_val, best_tag, tagged = postprocess(q)
    print("max int8 logit per clip:", best_val.tolist())
    print("top tag per clip:       ", best_tag.tolist())
    print(f"clips tagged: {int(tagged.sum())}/{len(tagged)}")


if __name__ == "__main__":
    main()
