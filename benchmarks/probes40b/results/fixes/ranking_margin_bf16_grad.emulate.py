# Drawn from pytorch/pytorch#185517 ("[Inductor][CPU][bf16] Gradient mismatch
# in F.margin_ranking_loss backward with bfloat16 tensors and float scalar").
# Eager CPU rounds the Python float margin to bf16 (1.7 -> 1.703125) before the
# add; Inductor keeps 1.7 in fp32, so pairs whose score gap is exactly 1.703125
# sit on the clamp boundary in eager (gradient flows) but just below it in the
# compiled kernel (gradient 0). The forward loss is the same; the grads differ.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch._inductor.config.emulate_precision_casts = True  # compdiag fix


class PairwiseRanker(nn.Module):
    def __init__(self, n_items):
        super().__init__()
        # teacher scores dequantized from uint8 (q / 64), fine-tuned in bf16
        q = torch.randint(0, 256, (n_items,))
        self.scores = nn.Parameter((q.float() / 64).to(torch.bfloat16))

    def forward(self, pos, neg):
        s_pos, s_neg = self.scores[pos], self.scores[neg]
        target = torch.ones_like(s_pos)
        return F.margin_ranking_loss(s_pos, s_neg, target, margin=1.7, reduction="sum")


def main():
    model = torch.compile(PairwiseRanker(512))
    pos = torch.randint(0, 512, (4096,))
    neg = torch.randint(0, 512, (4096,))
    loss = model(pos, neg)
    loss.backward()
    g = model.scores.grad.float()
    print(f"loss {loss.item():.2f}  nonzero grads {int((g != 0).sum())}  "
          f"grad L1 {g.abs().sum().item():.1f}  grad[:6] {g[:6].tolist()}")


if __name__ == "__main__":
    main()
