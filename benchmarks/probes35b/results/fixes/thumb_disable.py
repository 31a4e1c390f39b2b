# Thumbnail cache: uint8 RGB images are resized to 24x24 directly in uint8 (as torchvision's
# v2 Resize does for speed) by a compiled function, and stored as uint8.
import torch
import torch.nn.functional as F

torch.manual_seed(0)


@torch.compiler.disable
def make_thumbs(img_u8):
    # img_u8: (N, 3, H, W) uint8
    thumbs = F.interpolate(img_u8, size=(24, 24), mode="bilinear", align_corners=False, antialias=False)
    return thumbs


compiled_thumbs = torch.compile(make_thumbs)

total = 0
for batch in range(3):
    imgs = torch.randint(0, 256, (4, 3, 17, 19), dtype=torch.uint8)
    t = compiled_thumbs(imgs)
    ref = make_thumbs(imgs)
    diff = (t.int() - ref.int()).abs()
    total += int(t.sum())
    print(f"batch {batch} dtype {t.dtype} checksum {int(t.sum())} "
          f"pixels differing from eager {int((diff > 0).sum())} max {int(diff.max())}")
print("total", total)
