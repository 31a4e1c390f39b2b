"""rasbt/LLMs-from-scratch#705 ("Improve KV cache code for torch.compile": the k and v caches
grow with torch.cat "to only allocate as much as needed", and are kept outside the compiled
modules) and huggingface/transformers#40328 ("Prototype to make torch.compile work with
DynamicCache", by a PyTorch compiler developer: a dynamic cache grows with the sequence,
StaticCache is preallocated); on the CUDA-graph side, pytorch/pytorch#104448's discussion of
dynamic shapes under mode="reduce-overhead" (one recording per shape). A decoder's attention step
is compiled with mode="reduce-overhead" and called once per generated token while the KV cache
grows by one position per token outside it. The second length recompiles the step with a
dynamic cache length (automatic dynamic); from then on every token brings a length no recording
has seen, so CUDA-graph trees record (warm up) a new graph on every call and never replay one,
and past cudagraph_dynamic_shape_warn_limit (8) torch warns "CUDAGraph supports dynamic shapes by
recording a new graph for each distinct input size ... We have observed 9 distinct sizes". The
program exits 0.

Why it should reproduce on torch 2.11: by design. cudagraph_trees keys its recordings on the
SymInt inputs (cudagraphify_impl's fn_cache, since 2023) and warns past the limit of 8
(cudagraph_utils.maybe_warning_due_to_dynamic_shape, since 2024, limit 8 since 2.10); both are
unchanged in the 2.13 wheel. A CPU run on torch 2.13 (cuda replaced by cpu) compiles the step
twice (the recompile on the cache's size at index 2, 16 -> 17) and then takes 23 calls with 23
distinct cache lengths (17 to 39) without another recompile."""
import torch

torch.set_float32_matmul_precision("high")
HEADS, DIM, PROMPT, NEW_TOKENS = 8, 64, 16, 24


def attend(q, k_cache, v_cache):
    scores = (q @ k_cache.transpose(-1, -2)) * DIM ** -0.5
    return torch.softmax(scores, dim=-1) @ v_cache


step = torch.compile(attend, mode="reduce-overhead")
g = torch.Generator().manual_seed(0)
k_cache = torch.randn(1, HEADS, PROMPT, DIM, generator=g).cuda()
v_cache = torch.randn(1, HEADS, PROMPT, DIM, generator=g).cuda()
with torch.no_grad():
    for t in range(NEW_TOKENS):
        q, k_new, v_new = torch.randn(3, 1, HEADS, 1, DIM, generator=g).cuda().unbind(0)
        out = step(q, k_cache, v_cache)
        k_cache = torch.cat([k_cache, k_new], dim=2)
        v_cache = torch.cat([v_cache, v_new], dim=2)
torch.cuda.synchronize()
print(out.norm().item(), k_cache.shape[2])
