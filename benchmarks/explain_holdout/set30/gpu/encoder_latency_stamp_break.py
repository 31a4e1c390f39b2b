"""Serving a small transformer encoder + classification head on CUDA, compiled with
torch.compile. To split latency between encoder and head, the forward stamps the host clock
after the encoder (time.perf_counter()). Dynamo cannot trace the builtin time.perf_counter
("Attempted to call function marked as skipped"), so it breaks the forward at that line: two
graphs per call, and the stamp measures kernel launches, not GPU work. The fix: time outside
the compiled module with torch.cuda.Event pairs (or drop the stamp)."""
import time

import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")


class Classifier(nn.Module):
    def __init__(self, d=256, heads=8, layers=4, classes=16):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, classes)
        self.t_encoded = 0.0

    def forward(self, x):
        h = self.encoder(x)
        self.t_encoded = time.perf_counter()
        return self.head(h.mean(dim=1))


model = Classifier().to(device)  # dropout=0.0; not .eval(): keeps the fused encoder fast path off
cmodel = torch.compile(model)
batches = [torch.randn(32, 64, 256, device=device) for _ in range(4)]

with torch.no_grad():
    for i in range(12):
        t0 = time.perf_counter()
        logits = cmodel(batches[i % 4])
        enc_ms = (cmodel.t_encoded - t0) * 1e3
        if i % 4 == 3:
            print(f"batch {i + 1}: top class {logits.argmax(dim=1)[:4].tolist()}, stamp ok {enc_ms >= 0}")
