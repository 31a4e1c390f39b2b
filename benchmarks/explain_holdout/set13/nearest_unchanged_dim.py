"""pytorch/pytorch#198201 ("`torch.compile` (inductor) - `interpolate(mode='nearest')` resamples a
spatial dimension whose size is unchanged, disagreeing with eager",
https://github.com/pytorch/pytorch/issues/198201, open). A small decoder upsamples its feature
map by a non-integer scale factor per dimension, (1.3, 1.5): the 3-row height stays 3 rows
(floor(3 * 1.3) = 3) while the width grows from 4 to 6. Eager treats the unchanged height as
the identity; Inductor's lowering still applies the 1.3 scale and picks other source rows, so
the compiled decoder returns other values, with the same shape and no error. The program does
not compare; its sidecar runs it with --check-accuracy."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(1, 4, kernel_size=1)
        self.head = nn.Conv2d(4, 2, kernel_size=1)

    def forward(self, feats):
        h = torch.relu(self.proj(feats))
        h = F.interpolate(h, scale_factor=(1.3, 1.5), mode="nearest")
        return self.head(h)


torch.manual_seed(0)
decoder = Decoder().eval()
compiled = torch.compile(decoder)
feats = torch.arange(12, dtype=torch.float32).reshape(1, 1, 3, 4)
with torch.no_grad():
    logits = compiled(feats)
print("logits", tuple(logits.shape), "row sums", logits[0, 0].sum(dim=1).tolist())
