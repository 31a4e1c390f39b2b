"""A detection head that exposes dataset metadata (class names) as plain attributes through
a custom __getattr__, the way config-carrying wrappers do: `head.class_names` falls through
nn.Module.__getattr__ to a `custom_attributes` dict that is attached when the checkpoint
carries a label map. This checkpoint has none, so the dict is never attached. Eager
inference works; torch.compile fails before the first graph with RecursionError.

Source: pytorch/pytorch#183890 ("torch.compile hits RecursionError on nn.Module with custom
__getattr__", 2026-05) and #180824 (2026-04, same report): Dynamo probes the module for
attributes it does not have; the user __getattr__ calls hasattr(self, "custom_attributes")
before that dict exists, which re-enters __getattr__ without end."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class DetectionHead(nn.Module):
    def __init__(self, channels=32, num_anchors=3, num_classes=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, channels, 3, padding=1), nn.ReLU())
        self.cls = nn.Conv2d(channels, num_anchors * num_classes, 1)
        self.box = nn.Conv2d(channels, num_anchors * 4, 1)
        self.num_classes = num_classes

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if hasattr(self, "custom_attributes") and name in self.custom_attributes:
                return self.custom_attributes[name]
            raise

    def forward(self, images):
        feats = self.stem(images)
        b = images.shape[0]
        scores = self.cls(feats).view(b, -1, self.num_classes).sigmoid()
        boxes = self.box(feats).view(b, -1, 4)
        return scores, boxes


head = DetectionHead().eval()
checkpoint = {"state_dict": head.state_dict(), "label_map": None}  # exported without labels
head.load_state_dict(checkpoint["state_dict"])
if checkpoint["label_map"] is not None:
    head.custom_attributes = {"class_names": checkpoint["label_map"]}

compiled = torch.compile(head)
images = torch.randn(2, 3, 32, 32)
with torch.no_grad():
    scores, boxes = compiled(images)
best = scores.amax(1).argmax(-1)
print("top class id per image:", best.tolist())
