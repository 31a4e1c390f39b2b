"""torchvision 0.28.0 (torch 2.13.0), torchvision.models.detection.ssdlite320_mobilenet_v3_large
(weights=None, weights_backbone=None, num_classes=5).

A small detection service: an SSDlite detector in eval mode, compiled with fullgraph=True (the
user wants one graph and to be told of any break), run on a few camera frames under
torch.no_grad(). The detector's post-processing is data-dependent: per class it keeps the boxes
whose score passes the threshold (a boolean mask, an output length only the data decides) and
calls torchvision.ops.batched_nms on them. Under fullgraph=True Dynamo traces those lengths as
unbacked sizes, and batched_nms branches on them in Python:
`if boxes.numel() > (4000 if boxes.device.type == "cpu" else 100_000) ...` (ops/boxes.py:86).
The first call fails: torch._dynamo.exc.UserError "Could not guard on data-dependent expression
4*Min(300, u0) + ... > 4000", raised through the compiled model's call; nothing is detected.
pytorch/pytorch#138026 (open, "Error while exporting keypointrcnn_resnet50_fpn") meets the same
guard, `evaluate_expr(4*u1 > 4000)` in batched_nms, when exporting another torchvision detector.
"""
import torch
import torchvision

torch.manual_seed(0)
model = torchvision.models.detection.ssdlite320_mobilenet_v3_large(
    weights=None, weights_backbone=None, num_classes=5, score_thresh=0.01)
model.eval()
detector = torch.compile(model, fullgraph=True)

frames = [torch.rand(3, 96, 128) for _ in range(3)]
with torch.no_grad():
    for i, frame in enumerate(frames):
        detections = detector([frame])[0]
        kept = detections["scores"] > 0.3
        print(f"frame {i}: {int(kept.sum())} boxes above 0.3 of {len(detections['boxes'])}")
