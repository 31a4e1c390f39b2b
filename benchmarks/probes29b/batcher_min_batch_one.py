import torch
import torch.nn as nn

torch.manual_seed(0)
MAX_BATCH = 32


class LanguageID(nn.Module):
    def __init__(self, n_buckets=4096, dim=64, n_langs=12):
        super().__init__()
        self.ngrams = nn.EmbeddingBag(n_buckets, dim, mode="sum")
        self.cls = nn.Sequential(nn.Linear(dim, 64), nn.Tanh(), nn.Linear(64, n_langs))

    def forward(self, ngram_ids):
        return self.cls(self.ngrams(ngram_ids)).log_softmax(-1)


detector = torch.compile(LanguageID().eval())

# the batcher flushes whatever has queued up, from a single request to MAX_BATCH
queue_depths = [16, 5, 32, 1, 9]
with torch.inference_mode():
    for flush, depth in enumerate(queue_depths):
        ngram_ids = torch.randint(0, 4096, (depth, 20))
        torch._dynamo.mark_dynamic(ngram_ids, 0, min=1, max=MAX_BATCH)
        langs = detector(ngram_ids).argmax(-1)
        print(f"flush {flush}: {depth} texts, languages {sorted(set(langs.tolist()))}")
