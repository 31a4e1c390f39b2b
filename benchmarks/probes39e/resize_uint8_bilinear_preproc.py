# Inference preprocessing kept in uint8 (as decoded JPEGs arrive): resize the
# channels_last uint8 batch to the model size with bilinear, then normalise.
import hashlib
import torch
import torch.nn.functional as F

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1) * 255
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1) * 255


def resize_u8(img, size):
    return F.interpolate(img, size=size, mode="bilinear", align_corners=False, antialias=False)


def preprocess(img_u8, size=(56, 56)):
    small = resize_u8(img_u8, size)
    x = (small.float() - MEAN) / STD
    return small, x


torch.manual_seed(0)
batch = torch.randint(0, 256, (4, 3, 90, 120), dtype=torch.uint8)
batch = batch.contiguous(memory_format=torch.channels_last)
cpre = torch.compile(preprocess)
small, x = cpre(batch)
print("dtype", small.dtype, tuple(small.shape))
print("u8 sum", int(small.sum()))
print("u8 md5", hashlib.md5(small.contiguous().numpy().tobytes()).hexdigest())
print("norm mean", round(x.mean().item(), 5))
