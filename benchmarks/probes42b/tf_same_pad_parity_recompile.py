"""Text-line recognizer (fixed height 64, variable width) with TensorFlow "SAME" padding.

The convolutions were ported from a TF checkpoint, so they pad like TF "SAME": the
padding depends on whether the input size is divisible by the stride.  The helper is
HuggingFace transformers' `apply_tf_padding` (models/mobilenet_v2/modeling_mobilenet_v2.py,
also used by MobileNetV1/EfficientNet TF ports).  Text lines keep their aspect ratio, so
every batch has a different width.
Source: transformers MobileNetV2 `tf_padding=True`; pytorch/pytorch#150702 / diffusers
issues about recompiles when the image width/height changes.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def apply_tf_padding(features, conv_layer):
    in_height, in_width = features.shape[-2:]
    stride_height, stride_width = conv_layer.stride
    kernel_height, kernel_width = conv_layer.kernel_size
    if in_height % stride_height == 0:
        pad_along_height = max(kernel_height - stride_height, 0)
    else:
        pad_along_height = max(kernel_height - (in_height % stride_height), 0)
    if in_width % stride_width == 0:
        pad_along_width = max(kernel_width - stride_width, 0)
    else:
        pad_along_width = max(kernel_width - (in_width % stride_width), 0)
    pad_left = pad_along_width // 2
    pad_top = pad_along_height // 2
    padding = (pad_left, pad_along_width - pad_left, pad_top, pad_along_height - pad_top)
    return F.pad(features, padding, "constant", 0.0)


class ConvSame(nn.Conv2d):
    def forward(self, x):
        return super().forward(apply_tf_padding(x, self))


def block(cin, cout):
    return nn.Sequential(ConvSame(cin, cout, 3, stride=2), nn.BatchNorm2d(cout), nn.ReLU6())


class LineRecognizer(nn.Module):
    def __init__(self, num_chars=20):
        super().__init__()
        self.features = nn.Sequential(block(1, 16), block(16, 32))
        self.classifier = nn.Conv1d(32, num_chars, 1)

    def forward(self, x):
        f = self.features(x).mean(2)                 # collapse height -> (N, C, W/4)
        return self.classifier(f).log_softmax(1)     # per-column character scores


model = LineRecognizer().eval()
model_c = torch.compile(model)
widths = [128, 160, 150, 136, 131, 142, 139, 152]
with torch.no_grad():
    for i, w in enumerate(widths):
        line = torch.randn(2, 1, 64, w)              # a batch of text lines of width w
        scores = model_c(line)
        greedy = scores.argmax(1)
        print(f"line batch {i}: width {w} -> {scores.shape[-1]} columns, "
              f"first chars {greedy[0, :6].tolist()}")
