"""A one-stage detector on a torchvision MobileNetV3 backbone, its whole inference (backbone,
dense head, box decoding, top-k and torchvision.ops.batched_nms) compiled with torch.compile in
the default mode. batched_nms calls the custom op torchvision::nms, whose fake kernel
(torchvision's _meta_registrations.py) allocates its output length as an unbacked size: how
many boxes survive depends on the boxes' values. Without
torch._dynamo.config.capture_dynamic_output_shape_ops, Dynamo cannot put such an op in the
graph: a graph break "Dynamic shape operator ... Operator `torchvision.nms.default`'s output
shape depends on input Tensor data" (GB0036) inside torchvision's boxes.py, reached from the
batched_nms line of detect(); the indexing by `keep` runs in a resumed frame, the nms itself in
eager, on every call. pytorch/pytorch#121036 ("can't compile torchvision RPN with
AOTInductor", open) meets the same data-dependent nms in torchvision's detection code;
pytorch/vision#8593 is the batching of boxes of several images into one batched_nms call used
here. The program exits 0.

Why it should reproduce on torch 2.11: by design. Dynamo's get_fake_value turns the fake
kernel's DynamicOutputShapeException into the "Dynamic shape operator" break unless
capture_dynamic_output_shape_ops is set (torch/_dynamo/utils.py in the 2.13 wheel), and
torch._library.fake_impl raises it from new_dynamic_size / create_unbacked_symint whenever the
shape env does not allow dynamic output shapes, which Dynamo's shape env allows only under that
config or fullgraph=True (PR #163123, Sept 2025, before 2.11). torchvision's nms fake kernel has
done this since torchvision 0.17. Everything before the nms has static shapes (topk keeps a
fixed count), so the nms is the first and only break."""
import torch
import torch.nn as nn
import torchvision
from torchvision.ops import batched_nms

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
NUM_CLASSES, TOPK, IMG = 5, 100, 256


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = torchvision.models.mobilenet_v3_small(weights=None).features
        self.head = nn.Conv2d(576, 4 + NUM_CLASSES, kernel_size=1)

    def forward(self, images):
        out = self.head(self.backbone(images))          # (B, 4 + C, H/32, W/32)
        b, _, h, w = out.shape
        out = out.flatten(2).transpose(1, 2)             # (B, cells, 4 + C)
        ys, xs = torch.meshgrid(torch.arange(h, device=out.device),
                                torch.arange(w, device=out.device), indexing="ij")
        centers = torch.stack([xs, ys], -1).reshape(1, -1, 2).float().add(0.5) * (IMG / w)
        half = out[..., 2:4].exp() * 16.0
        xy = centers + out[..., 0:2] * 8.0
        boxes = torch.cat([xy - half, xy + half], -1)   # (B, cells, 4), xyxy
        scores, labels = out[..., 4:].sigmoid().max(-1)
        return boxes, scores, labels


def detect(model, images):
    boxes, scores, labels = model(images)
    cells = boxes.shape[1]
    scores, top = scores.flatten().topk(TOPK)
    boxes, labels = boxes.flatten(0, 1)[top], labels.flatten()[top]
    image_ids = top // cells
    keep = batched_nms(boxes, scores, image_ids * NUM_CLASSES + labels, 0.5)
    return boxes[keep], scores[keep], labels[keep], image_ids[keep]


model = Detector().cuda().eval()
compiled_detect = torch.compile(detect)
g = torch.Generator().manual_seed(0)
with torch.no_grad():
    for step in range(3):
        images = torch.rand(4, 3, IMG, IMG, generator=g).cuda()
        boxes, scores, labels, image_ids = compiled_detect(model, images)
        print(step, "detections per image", torch.bincount(image_ids, minlength=4).tolist())
