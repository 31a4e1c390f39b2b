# Serving with a thread pool: warm the compiled model under inference_mode, then serve from workers.
from concurrent.futures import ThreadPoolExecutor
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 4)).eval()
compiled = torch.compile(model)

# warmup in the main thread so the first request does not pay for the compile
with torch.inference_mode():
    compiled(torch.zeros(8, 32))


def handle(request):
    with torch.inference_mode():  # grad mode is thread-local: enter it in the worker
        x = torch.tensor(request["features"], dtype=torch.float32).reshape(8, 32)
        logits = compiled(x)
        return request["id"], logits.argmax(-1).tolist()


requests = [{"id": i, "features": torch.randn(8 * 32).tolist()} for i in range(6)]
with ThreadPoolExecutor(max_workers=1) as pool:
    for rid, labels in pool.map(handle, requests):
        print(rid, labels)
