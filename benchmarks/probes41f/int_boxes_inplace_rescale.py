"""Detection preprocessing: resize images and rescale integer box coordinates.

Ground-truth boxes arrive as int64 pixel coordinates.  The resize helper
scales them in place by the (float) resize factor.  Eager PyTorch refuses
(an int64 tensor cannot hold a float result in place); the compiled helper
silently truncates and carries on.
Follows the '[PT2] Validation lost' class of pytorch/pytorch#197554 (eager
validates, compiled path does not), here the in-place result-type check.
"""
import torch
import torch.nn.functional as F

torch.manual_seed(0)
TARGET = 96


@torch.compile
def resize_sample(image, boxes):
    h, w = image.shape[-2:]
    scale = TARGET / max(h, w)
    image = F.interpolate(image[None], scale_factor=scale, mode="bilinear",
                          align_corners=False)[0]
    boxes.mul_(scale)                      # boxes are int64 pixel coords
    return image, boxes


def make_sample(h, w, n_boxes=3):
    image = torch.rand(3, h, w)
    x0 = torch.randint(0, w // 2, (n_boxes,))
    y0 = torch.randint(0, h // 2, (n_boxes,))
    boxes = torch.stack([x0, y0, x0 + w // 3, y0 + h // 3], dim=1)
    return image, boxes


def main():
    for h, w in [(128, 160), (128, 160), (128, 160)]:
        image, boxes = make_sample(h, w)
        original = boxes.clone()
        image, boxes = resize_sample(image, boxes)
        print(f"{h}x{w} -> {tuple(image.shape[-2:])}: boxes {boxes.tolist()} "
              f"(from {original.tolist()})")
    area = ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).sum()
    print("total box area after resize:", int(area))


if __name__ == "__main__":
    main()
