"""pytorch/pytorch#167639 ("torch.compile incompatible with CUDA Graph capture due to RNG state access
during compilation", https://github.com/pytorch/pytorch/issues/167639, open) and #131782 ("Can't
use torch.cuda.graph outside of torch.compile"): a model warmed up in eager only, whose compiled
form is first called inside the user's own torch.cuda.graph capture. The call compiles there, and
Dynamo's frame conversion saves the CUDA RNG state (convert_frame.preserve_global_state calls
torch.cuda.get_rng_state()), which CUDA graph capture forbids: "Cannot call
CUDAGeneratorImpl::current_seed during CUDA graph capture". The program ends at the compiled call
inside the capture block; the fix is to run the compiled model once before capturing.

Why it should still reproduce on torch 2.11: by design and long-standing (#131782, July 2024, closed,
"reasonable ... if this is a wontfix"; #167639, November 2025, open; #185074, a May 2026 RFC for
capture awareness). The torch 2.13 wheel's convert_frame still reads torch.cuda.get_rng_state() for every
frame it compiles, and the generator's capture check is unchanged."""
import torch

model = torch.nn.Sequential(torch.nn.Linear(10, 20), torch.nn.ReLU(), torch.nn.Linear(20, 1))
model = model.cuda().eval()
compiled = torch.compile(model)
x = torch.randn(4, 10, device="cuda")
with torch.no_grad():
    print("eager warm-up:", tuple(model(x).shape))  # the compiled model has not run yet
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = compiled(x)
graph.replay()
print(tuple(y.shape))
