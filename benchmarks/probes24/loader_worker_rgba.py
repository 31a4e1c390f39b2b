"""Image pipeline that normalises each image with a compiled function inside the Dataset,
so it runs in the DataLoader workers (pytorch #97992: torch.compile in a DataLoader
transform). One file in the set is an RGBA PNG (4 channels); the compiled normalise
broadcasts a 3-channel mean against it and fails in worker 1. The main process sees only
DataLoader's re-raised "Caught ... in DataLoader worker process 1"."""
import torch
from torch.utils.data import DataLoader, Dataset

MEAN = torch.tensor([0.485, 0.456, 0.406])
STD = torch.tensor([0.229, 0.224, 0.225])


@torch.compile
def normalize(img):
    img = img.float() / 255.0
    return (img - MEAN[:, None, None]) / STD[:, None, None]


class Images(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        channels = 4 if i == 6 else 3
        g = torch.Generator().manual_seed(i)
        img = torch.randint(0, 256, (channels, 32, 32), dtype=torch.uint8, generator=g)
        return normalize(img), i % 2


if __name__ == "__main__":
    loader = DataLoader(Images(), batch_size=4, num_workers=2)
    seen = 0
    for imgs, labels in loader:
        seen += imgs.shape[0]
    print("images", seen)
