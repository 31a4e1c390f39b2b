# A custom op that keeps the confident detections; its fake impl copies the eager body (boolean mask).
import torch
import torch.nn as nn
torch._dynamo.config.capture_dynamic_output_shape_ops = True


@torch.library.custom_op("probes36c::keep_confident", mutates_args=())
def keep_confident(scores: torch.Tensor, thresh: float) -> torch.Tensor:
    return scores[scores > thresh].clone()


@keep_confident.register_fake
def _(scores, thresh):
    n = torch.library.get_ctx().new_dynamic_size()
    return scores.new_empty(n)


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.cls = nn.Linear(8, 1)

    def forward(self, feats):
        scores = torch.sigmoid(self.cls(feats)).squeeze(-1)
        kept = keep_confident(scores, 0.5)
        return kept.sum(), kept.numel()


torch.manual_seed(0)
det = Detector()
cdet = torch.compile(det)
feats = torch.randn(20, 8)
with torch.no_grad():
    s_e, n_e = det(feats)
    print(f"eager: kept {n_e}, score sum {s_e.item():.4f}")
    s_c, n_c = cdet(feats)
    print(f"compiled: kept {n_c}, score sum {s_c.item():.4f}")
