# Drawn from pytorch/pytorch#195214 ("[inductor][CUDA][bf16] Fusion skips
# rounding before equality, producing zero tie counts"). The same bug
# reproduces on CPU with torch 2.13: Inductor fuses the bf16 division into the
# `==` against the (bf16-rounded) row max, compares the unrounded fp32 quotient,
# so no element equals the max, the tie count is 0 and the split weights are NaN.
import torch

torch.manual_seed(0)


@torch.compile
def split_among_ties(logits, temperature):
    # hard "argmax" routing that splits the weight evenly among tied maxima
    scores = logits / temperature
    best = scores.amax(dim=-1, keepdim=True)
    is_best = scores == best
    n_best = is_best.sum(dim=-1, keepdim=True)
    weights = is_best.to(logits.dtype) / n_best
    return weights, n_best.squeeze(-1)


def main():
    temperature = 0.7
    for batch in range(2):
        logits = torch.randn(16, 64).to(torch.bfloat16)
        weights, n_best = split_among_ties(logits, temperature)
        print(f"batch {batch}: ties per row {n_best[:8].tolist()} "
              f"row sums {weights.float().sum(-1)[:4].tolist()} "
              f"nan rows {int(weights.isnan().any(-1).sum())}")


if __name__ == "__main__":
    main()
