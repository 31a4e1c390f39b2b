import torch
import torch.nn as nn

torch.manual_seed(0)


class BoxRefiner(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(4 + 32, 64), nn.ReLU(), nn.Linear(64, 5))

    def forward(self, proposals, roi_feats, boxes_per_image):
        out = self.mlp(torch.cat([proposals, roi_feats], dim=1))
        refined = proposals + out[:, :4]
        scores = out[:, 4].sigmoid()
        per_image = []
        for boxes, s in zip(refined.split(boxes_per_image), scores.split(boxes_per_image)):
            best = s.argmax()
            per_image.append((boxes.index_select(0, best[None])[0], s.index_select(0, best[None])[0], s.mean()))
        return per_image


refiner = torch.compile(BoxRefiner().eval())
with torch.no_grad():
    for batch in range(8):
        boxes_per_image = torch.randint(5, 40, (4,)).tolist()
        total = sum(boxes_per_image)
        proposals = torch.rand(total, 4) * 200
        roi_feats = torch.randn(total, 32)
        results = refiner(proposals, roi_feats, boxes_per_image)
        means = ", ".join(f"{m:.3f}" for _, _, m in results)
        print(f"batch {batch}: proposals {boxes_per_image}, mean score per image [{means}]")
