"""Failure (Dynamo internal): probes46a cutmix_capture_scalar_paste. With
`capture_scalar_outputs` on, box corners read with `.item()` become unbacked numbers; a paste
through an advanced index and slices bounded by them loses one of the symbols
(PendingUnbackedSymbolNotFound), said at the paste: torch's line stays, the read is named, and
the setting leads the fix (without it the reads are graph breaks and the program runs)."""
import torch

torch._dynamo.config.capture_scalar_outputs = True


@torch.compile
def mix(images, box, perm):
    y1, y2 = box[0].item(), box[1].item()
    x1, x2 = box[2].item(), box[3].item()
    images = images.clone()
    images[:, :, y1:y2, x1:x2] = images[perm, :, y1:y2, x1:x2]  # <- diagnosis
    return images


print(mix(torch.randn(4, 3, 8, 8), torch.tensor([1, 5, 2, 6]), torch.randperm(4)).shape)
