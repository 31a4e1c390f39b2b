"""The detector of tv_batched_nms_break (a torchvision MobileNetV3 backbone, a dense head, top-k
and torchvision.ops.batched_nms), its inference compiled with fullgraph=True and
mode="reduce-overhead", as a user does to be told of any graph break and to get CUDA graphs.
Since PR #163123 ("Turn on capture_dynamic_output_shape_ops when fullgraph=True", Sept 2025)
fullgraph=True no longer breaks or fails on torchvision::nms: Dynamo traces it with an unbacked
output length, so the whole detector is one graph. That graph then holds an op whose output has
a data-dependent size, which CUDA graphs cannot record, and Inductor skips CUDA graphs for the
whole graph: "skipping cudagraphs due to disabling cudagraphs due to incompatible op
torchvision.nms.default Found from ... keep = batched_nms(...)". Every call runs the compiled
kernels without a CUDA graph; nothing fails. PR #163123's review asked for a log "that says
... was turned on potentially opting in unbacked semantics because fullgraph=True";
pytorch/pytorch#121036 (open) is the same data-dependent nms in torchvision's RPN. Graph
partitioning is pinned off, as set16's and set17's CUDA cases pin it (its 2.11 default could
not be read here; on, the nms would be split out of the CUDA graphs instead). Exits 0.

Why it should reproduce on torch 2.11: by design. output_graph.py builds Dynamo's ShapeEnv
with allow_dynamic_output_shape_ops=one_graph or the config (PR #163123, before 2.11);
compile_fx, without graph partitioning, disables CUDA graphs at the first node whose value has
free unbacked symbols (utils.get_first_incompatible_cudagraph_node), quoting its stack trace;
both are in the 2.13 wheel. A CPU run of a stand-in op registered like torchvision's nms (a
fake kernel calling create_unbacked_symint) compiles one graph under fullgraph=True with no
break; the skip itself needs CUDA."""
import torch
import torch.nn as nn
import torchvision
from torchvision.ops import batched_nms

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
torch._inductor.config.graph_partition = False
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
compiled_detect = torch.compile(detect, fullgraph=True, mode="reduce-overhead")
g = torch.Generator().manual_seed(0)
with torch.no_grad():
    for step in range(3):
        images = torch.rand(4, 3, IMG, IMG, generator=g).cuda()
        boxes, scores, labels, image_ids = compiled_detect(model, images)
        print(step, "detections per image", torch.bincount(image_ids, minlength=4).tolist())
