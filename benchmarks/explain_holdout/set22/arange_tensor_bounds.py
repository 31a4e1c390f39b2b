"""pytorch/pytorch#158058 ("`torch.compile` hard errors with `PendingUnbackedSymbolNotFound`",
https://github.com/pytorch/pytorch/issues/158058, open, 2025-07-10): with
capture_scalar_outputs=True, unpacking a 2-element tensor into its two elements and passing
them to torch.arange as the bounds makes Dynamo fail hard (InternalTorchDynamoError:
PendingUnbackedSymbolNotFound: Pending unbacked symbols {u0, u1} not in returned outputs)
instead of graph-breaking; eager returns the range. Here: pooling a token span whose
[start, end) bounds arrive as a tensor, with scalar capture on to avoid a graph break at
.item()."""
import torch

torch._dynamo.config.capture_scalar_outputs = True
torch.manual_seed(0)

embeddings = torch.randn(32, 8)


@torch.compile
def pool_span(span):
    start, end = span
    positions = torch.arange(start, end)
    return embeddings[positions].mean(dim=0)


span = torch.tensor([3, 11])
pooled = pool_span(span)
print("pooled", tuple(pooled.shape), round(pooled.sum().item(), 4))
