"""Multi-task evaluation with one timm ResNet-18 backbone: the script compiles the model once,
evaluates task A (10 classes), then swaps the head with timm's model.reset_classifier(3) for
task B and keeps calling the same compiled module. The new fc has a different shape, so the
compiled forward's guards on fc's parameters fail -> recompile of the whole ResNet.
(timm docs: call reset_classifier / set up the head before torch.compile.)"""
import torch
import timm

torch.manual_seed(0)
model = timm.create_model("resnet18", pretrained=False, num_classes=10).eval()
cmodel = torch.compile(model)


def batches(n, seed):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(2, 3, 64, 64, generator=g) for _ in range(n)]


def head_for_task_b(in_features, n_classes=3):
    g = torch.Generator().manual_seed(7)
    w = torch.randn(n_classes, in_features, generator=g) * 0.02
    return {"weight": w, "bias": torch.zeros(n_classes)}


@torch.no_grad()
def predict(loader):
    preds = []
    for x in loader:
        preds.extend(cmodel(x).argmax(dim=1).tolist())
    return preds


if __name__ == "__main__":
    print("task A preds:", predict(batches(3, seed=1)))
    # switch to task B: new 3-way head on the same backbone
    model.reset_classifier(3)
    model.get_classifier().load_state_dict(head_for_task_b(model.num_features))
    print("task B preds:", predict(batches(3, seed=2)))
    print("head:", tuple(model.get_classifier().weight.shape))
