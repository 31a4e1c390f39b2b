# Detection head: per-box features pooled from the image each box belongs to.
# Boxes of a batch are concatenated (torchvision-style list -> cat); the batch index of
# every box is rebuilt from the per-image box counts, as torchvision's convert_boxes_to_roi_format does.
import torch
import torch.nn as nn

torch.manual_seed(0)


class BoxHead(nn.Module):
    def __init__(self, c=8, n_cls=5):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(),
                                      nn.Conv2d(c, c, 3, stride=2, padding=1), nn.ReLU())
        self.box_fc = nn.Linear(4, c)
        self.cls = nn.Linear(c, n_cls)

    def forward(self, images, boxes, counts):
        fmap = self.backbone(images)                   # (B, C, H, W)
        img_feat = fmap.mean((2, 3))                   # (B, C)
        batch_idx = torch.repeat_interleave(torch.arange(images.shape[0]), counts, output_size=boxes.shape[0])
        per_box = img_feat[batch_idx] + self.box_fc(boxes)
        return self.cls(torch.relu(per_box)).softmax(-1)


model = BoxHead().eval()
cmodel = torch.compile(model)
with torch.no_grad():
    for step in range(4):
        counts = torch.tensor([3 + step, 5 - step])
        boxes = torch.rand(int(counts.sum()), 4)
        images = torch.randn(2, 3, 16, 16)
        probs = cmodel(images, boxes, counts)
        print(step, tuple(probs.shape), [round(v, 4) for v in probs.max(-1).values.tolist()])
