import torch
import torch.nn as nn

torch._dynamo.config.capture_dynamic_output_shape_ops = True


@torch.library.custom_op("vocab::dedup_ids", mutates_args=())
def dedup_ids(ids: torch.Tensor) -> torch.Tensor:
    return torch.unique(ids)


@dedup_ids.register_fake
def _(ids):
    return torch.empty(torch.unique(ids).numel(), dtype=ids.dtype)


class BagOfWords(nn.Module):
    """Averages the embeddings of the distinct tokens of a document."""

    def __init__(self, vocab=1000, d=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.head = nn.Linear(d, 2)

    def forward(self, ids):
        uniq = dedup_ids(ids)
        return self.head(self.emb(uniq).mean(0, keepdim=True))


torch.manual_seed(0)
model = BagOfWords()
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(5):
    ids = torch.randint(0, 1000, (200,))
    label = torch.tensor([i % 2])
    loss = nn.functional.cross_entropy(cmodel(ids), label)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"doc {i} loss {loss.item():.4f}")
