"""Per-class feature centroids for a segmentation head (prototype update).

Pixels whose label is the 'ignore' value -1 (unlabelled) are fed straight
into index_add.  Eager PyTorch rejects the negative index; the compiled
update silently accepts it and adds those pixels to the LAST class.
Follows pytorch/pytorch#185885 (index_add accepts a negative index under
Inductor while eager raises 'index -1 is out of bounds').
"""
import torch

torch.manual_seed(0)
NUM_CLASSES = 4
FEAT = 8
IGNORE = -1


def class_sums(feats, labels, num_classes=NUM_CLASSES):
    sums = torch.zeros(num_classes, feats.shape[1])
    counts = torch.zeros(num_classes)
    sums = sums.index_add(0, labels, feats)
    counts = counts.index_add(0, labels, torch.ones_like(labels, dtype=feats.dtype))
    return sums, counts


@torch.compile
def update_prototypes(protos, feats, labels, momentum=0.9):
    sums, counts = class_sums(feats, labels)
    means = sums / counts.clamp(min=1).unsqueeze(1)
    seen = (counts > 0).unsqueeze(1)
    return torch.where(seen, momentum * protos + (1 - momentum) * means, protos), counts


def fake_batch(n_pix=64):
    feats = torch.randn(n_pix, FEAT)
    labels = torch.randint(0, NUM_CLASSES, (n_pix,))
    labels[torch.rand(n_pix) < 0.25] = IGNORE          # unlabelled pixels
    return feats, labels


def main():
    protos = torch.zeros(NUM_CLASSES, FEAT)
    for step in range(3):
        feats, labels = fake_batch()
        protos, counts = update_prototypes(protos, feats, labels)
        print(f"step {step}: pixels/class {counts.long().tolist()} "
              f"ignored {(labels == IGNORE).sum().item()}")
    print("prototype norms:", [round(v, 4) for v in protos.norm(dim=1).tolist()])


if __name__ == "__main__":
    main()
