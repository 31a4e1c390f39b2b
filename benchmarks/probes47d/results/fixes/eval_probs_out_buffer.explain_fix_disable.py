# Inference loop writing probabilities into a preallocated buffer with `out=`
# (test_misc.py test_out_variants_with_resizing_on_graph_inputs: an out= tensor of the
# wrong shape is resized, which Dynamo does not trace).
import torch
import torch.nn as nn

torch.manual_seed(0)


class Tagger(nn.Module):
    def __init__(self, d=32, n_tags=10):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, 64), nn.GELU(), nn.Linear(64, n_tags))

    def forward(self, x):
        return self.body(x)


model = Tagger().eval()
BATCH = 16
probs_buf = torch.empty(BATCH, 10)  # reused across batches to avoid allocations


@torch.compiler.disable
def _sigmoid_out(logits, out):
    torch.sigmoid(logits, out=out)


@torch.compile
def predict(x, out):
    logits = model(x)
    _sigmoid_out(logits, out)
    return (out > 0.5).sum(-1)


dataset = torch.randn(100, 32)  # 100 rows: the last batch has 4
n_tags = 0
with torch.no_grad():
    for start in range(0, len(dataset), BATCH):
        x = dataset[start:start + BATCH]
        n_tags += int(predict(x, probs_buf).sum())
print("rows", len(dataset), "tags predicted", n_tags)
