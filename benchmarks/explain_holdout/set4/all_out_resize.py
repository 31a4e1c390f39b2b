"""pytorch/pytorch#145220 ("Regression in the compilation of the torch.all operation in PyTorch
version 2.6.0 compared to 2.5.1", https://github.com/pytorch/pytorch/issues/145220): `torch.all`
with an empty `out=` tensor that must be resized breaks the graph ("out variants with resizing
on graph inputs") where torch 2.5 compiled it whole."""
import torch


@torch.compile(backend="inductor")
def compiled_fn(input_tensor: torch.Tensor):
    output_tensor = torch.empty((0,), dtype=torch.bool).to(input_tensor.device)
    result = torch.all(input_tensor, dim=2, out=output_tensor)
    return result


input_tensor = torch.randint(0, 2, (2, 3, 4), dtype=torch.bool, device="cpu")
output = compiled_fn(input_tensor)
print("graphs:", torch._dynamo.utils.counters["stats"]["unique_graphs"])
print("breaks:", dict(torch._dynamo.utils.counters["graph_break"]))
