# Drawn from pytorch/pytorch#185517 ("[Inductor][CPU][bf16] Gradient mismatch
# in F.margin_ranking_loss backward with bfloat16 tensors and float scalar").
# Eager CPU rounds the Python float margin to bf16 (1.7 -> 1.703125) before the
# add; Inductor keeps 1.7 in fp32, so pairs whose score gap is exactly 1.703125
# sit on the clamp boundary in eager (gradient flows) but just below it in the
# compiled kernel (gradient 0). The forward loss is the same; the grads differ.
import torch
import torch.nn.functional as F

torch.manual_seed(0)


class Scorer(torch.nn.Module):
    def __init__(self, n_items):
        super().__init__()
        # teacher scores dequantized from uint8 (q / 64), kept in bf16
        q = torch.randint(0, 256, (n_items,))
        self.scores = torch.nn.Parameter((q.float() / 64).to(torch.bfloat16))

    def forward(self, pos, neg):
        return self.scores[pos], self.scores[neg]


def main():
    model = Scorer(512)
    step = torch.compile(lambda p, n: F.margin_ranking_loss(
        *[s.float() for s in model(p, n)], torch.ones(p.shape[0]),
        margin=1.7, reduction="sum"))
    pos = torch.randint(0, 512, (4096,))
    neg = torch.randint(0, 512, (4096,))
    loss = step(pos, neg)
    loss.backward()
    g = model.scores.grad.float()
    print(f"loss {loss.item():.2f}  grad sum {g.sum().item():.1f}  "
          f"nonzero grads {int((g != 0).sum())}  grad L1 {g.abs().sum().item():.1f}")


if __name__ == "__main__":
    main()
