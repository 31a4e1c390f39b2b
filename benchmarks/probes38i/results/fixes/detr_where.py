# DETR-style post-processing: keep the queries whose class score passes a threshold,
# per image, and pool the kept boxes; an image may keep no boxes. The user turned on
# capture_dynamic_output_shape_ops (torch's hint for boolean-mask indexing).
import torch

torch._dynamo.config.capture_dynamic_output_shape_ops = True
torch.manual_seed(0)


def postprocess(logits, boxes, thr=0.5):
    scores, labels = logits.softmax(-1)[..., :-1].max(-1)
    results = []
    for b in range(logits.shape[0]):
        keep = scores[b] > thr
        kept_boxes, kept_scores = boxes[b][keep], scores[b][keep]
        pooled = (kept_boxes * kept_scores[:, None]).sum(0) / kept_scores.sum()
        results.append(torch.where(keep.sum() == 0, torch.zeros(4), pooled))
    return torch.stack(results)


post = torch.compile(postprocess)
for step in range(3):
    logits = torch.randn(3, 10, 5) * 3
    boxes = torch.rand(3, 10, 4)
    ref = postprocess(logits, boxes)
    out = post(logits, boxes)
    print(f"batch {step}: max diff {(out - ref).abs().max().item():.2e}", [round(v, 4) for v in out.sum(1).tolist()])
