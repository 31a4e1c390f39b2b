"""Serverless-style inference worker that ships compile artifacts between launches.

Follows the torch.compiler caching tutorial ("Portable caching with
torch.compiler.save_cache_artifacts / load_cache_artifacts"): each launch is a
fresh container (simulated with a fresh TORCHINDUCTOR_CACHE_DIR), so the worker
loads the previous launch's artifacts from a shared file before compiling.
Correct cousin of mega_cache_save_before_call.py: the artifacts are saved after
the first requests have run (compilation has happened), so the next launch
loads them and its compiles are served from the cache.
"""
import os
import tempfile

os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="container_")  # fresh container

import torch
import torch.nn as nn

ARTIFACTS = os.path.join(tempfile.gettempdir(), "p42f_ranker_megacache_ok.bin")


class Ranker(nn.Module):
    def __init__(self, d=48):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.score = nn.Sequential(nn.Linear(2 * d, d), nn.SiLU(), nn.Linear(d, 1))

    def forward(self, query, docs):
        q = self.q(query).unsqueeze(1).expand(-1, docs.shape[1], -1)
        k = self.k(docs)
        return self.score(torch.cat([q * k, q - k], dim=-1)).squeeze(-1)


def warm_start():
    if os.path.exists(ARTIFACTS):
        with open(ARTIFACTS, "rb") as f:
            torch.compiler.load_cache_artifacts(f.read())
        return "loaded"
    return "none"


def main():
    torch.manual_seed(0)
    state = warm_start()
    model = Ranker().eval()
    ranker = torch.compile(model)

    g = torch.Generator().manual_seed(5)
    with torch.no_grad():
        for req in range(3):
            query, docs = torch.randn(4, 48, generator=g), torch.randn(4, 20, 48, generator=g)
            top = ranker(query, docs).topk(3, dim=1).indices
            print(f"request {req} top3 {top[0].tolist()}")
    saved = torch.compiler.save_cache_artifacts()
    if saved is not None:
        with open(ARTIFACTS, "wb") as f:
            f.write(saved[0])
    print("warm start:", "artifacts loaded" if state == "loaded" else "no artifacts")


if __name__ == "__main__":
    main()
