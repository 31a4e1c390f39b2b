# Serving a torchvision SqueezeNet 1.1 classifier (random weights) one request at a time, with
# images of different sizes (no resize in the service).  The second size makes Dynamo mark H
# and W dynamic (automatic dynamic, expected).  Later sizes still recompile: while tracing
# F.conv2d with symbolic sizes, fake-tensor conv picks the memory format through
# torch._C._select_conv_backend, whose mkldnn-vs-native rule for batch size 1 compares the
# input numel with 20480 (aten Convolution.cpp use_mkldnn), so guards like
# `128 + 128*(...H...)*(...W...) <= 20480` are installed and other sizes fail them.
# mark_dynamic / dynamic=True do not remove them; batching (N >= 2) or fixed/bucketed input
# sizes do.
import torch
import torchvision

torch.manual_seed(0)
model = torchvision.models.squeezenet1_1(num_classes=10).eval()
compiled = torch.compile(model)

request_sizes = [(64, 64), (96, 96), (128, 128), (112, 112), (96, 128)]
with torch.no_grad():
    for h, w in request_sizes:
        image = torch.randn(1, 3, h, w)
        probs = compiled(image).softmax(-1)
        print(f"{h}x{w} top class {probs.argmax().item()} p {probs.max().item():.4f}")
