"""Segmentation QA overlay: brighten every pixel that any class mask covers.

After pytorch/pytorch#198081: `Tensor.any` on a uint8 tensor keeps uint8 in eager but
returns bool under Inductor, so the arithmetic that follows changes type and value.
"""
import torch


def make_batch(n=4, c=3, h=32, w=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    images = torch.randint(0, 256, (n, 3, h, w), dtype=torch.uint8, generator=g)
    # one uint8 0/1 mask per class, as decoded from a PNG label map
    masks = (torch.rand(n, c, h, w, generator=g) > 0.8).to(torch.uint8)
    return images, masks


def overlay(images, masks, gain=80):
    covered = masks.any(dim=1)                       # (N, H, W): pixels with any label
    lift = covered.unsqueeze(1) * gain               # brighten covered pixels
    out = images + lift
    coverage = covered.float().mean(dim=(1, 2))
    return out, coverage


def summarize(tag, out, coverage):
    print(f"{tag}: dtype={out.dtype} max={int(out.max())} "
          f"mean={out.float().mean().item():.3f} coverage={[round(c, 3) for c in coverage.tolist()]}")


def main():
    images, masks = make_batch()
    compiled_overlay = torch.compile(overlay)
    out_e, cov_e = overlay(images, masks)
    out_c, cov_c = compiled_overlay(images, masks)
    summarize("eager   ", out_e, cov_e)
    summarize("compiled", out_c, cov_c)
    same = out_e.dtype == out_c.dtype and torch.equal(out_e.to(torch.int64), out_c.to(torch.int64))
    print("overlay identical:", same)


if __name__ == "__main__":
    main()
