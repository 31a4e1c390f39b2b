# Drawn from pytorch/pytorch#194706 ("Inductor CPU backend emits error when
# calculating gradients"): the generated C++ kernel declares
# `auto at_Half_tmp_acc1_vec` twice when one fp16/bf16 column reduction is
# stored to two buffers, and g++ rejects it. On torch 2.13 CPU the same
# codegen bug fires without jacfwd: two identical fp16 `sum(dim=0)` in one
# compiled function.
import torch

torch.manual_seed(0)


@torch.compile
def summarize(batch):
    # batch: [rows, features], kept in float16 to halve the feature store
    n = batch.shape[0]
    centered = batch - batch.sum(dim=0) / n
    totals = batch.sum(dim=0)
    return centered, totals


def main():
    grand_total = torch.zeros(48, dtype=torch.float32)
    for step in range(3):
        batch = (torch.rand(256, 48) * 4).half()
        centered, totals = summarize(batch)
        grand_total += totals.float()
        print(f"step {step}: centered mean {centered.float().mean().item():+.4f} "
              f"max |x| {centered.abs().max().item():.3f}")
    print("feature totals (first 4):", [round(v, 1) for v in grand_total[:4].tolist()])


if __name__ == "__main__":
    main()
