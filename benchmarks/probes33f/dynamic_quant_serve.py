# Serve a small text classifier with dynamic int8 quantization of its Linear
# layers, compiled for the request loop.
import time

import torch
import torch.nn as nn

torch.manual_seed(0)


class IntentClassifier(nn.Module):
    def __init__(self, vocab=1000, dim=64, n_intents=12):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.fc1 = nn.Linear(dim, 128)
        self.fc2 = nn.Linear(128, n_intents)

    def forward(self, tokens):
        h = self.emb(tokens)
        h = torch.relu(self.fc1(h))
        return self.fc2(h).softmax(-1)


model = IntentClassifier().eval()
qmodel = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
serve = torch.compile(qmodel)

with torch.no_grad():
    for request in range(5):
        tokens = torch.randint(0, 1000, (16, 20))
        t0 = time.perf_counter()
        probs = serve(tokens)
        ms = (time.perf_counter() - t0) * 1e3
        ref = model(tokens)
        agree = (probs.argmax(-1) == ref.argmax(-1)).float().mean().item()
        print(f"request {request}: top intent {probs[0].argmax().item()}  agreement with fp32 {agree:.2f}")
