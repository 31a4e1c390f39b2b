"""pytorch/pytorch#132714 ("[inline_inbuilt_nn_modules][cudagraphs] Large regression in llama
models because cudagraph is not picked up", closed): "skipping cudagraphs due to mutated inputs
(16 instances)" came from KV caches updated in place that Dynamo lifts as graph inputs. Its fix
marks the tensor attributes of nn.Modules static; a cache held by a plain Python object (here
`KVCache`, passed to the compiled step, as gpt-fast-style decoders and nari-labs/dia before its
PR #163 held one) is still an ordinary graph input, so its in-place update skips CUDA graphs:
"skipping cudagraphs due to mutated inputs (1 instances). Found from" the `index_copy_` line.
Should reproduce on torch 2.11: cudagraph_trees' check_for_mutation and its message are
unchanged since 2024 (the 2.13 wheel's cudagraph_utils.get_mutation_stack_trace), and the
static marking only covers nn.Module sources (2.13's variables/builder.py); graph_partition is
pinned off so the whole graph is the unit skipped."""
import torch

torch._inductor.config.graph_partition = False  # the whole-graph decision: skipped, not split


class KVCache:  # a plain object, not an nn.Module: its tensor is not marked static
    def __init__(self, max_len, dim):
        self.kv = torch.zeros(2, max_len, dim, device="cuda")

    def update(self, pos, k, v):
        self.kv.index_copy_(1, pos, torch.stack((k, v)))
        return self.kv[0], self.kv[1]


def decode_step(proj, cache, x, pos):
    q, k, v = proj(x).chunk(3, dim=-1)
    keys, values = cache.update(pos, k, v)
    att = (q @ keys.T / keys.shape[-1] ** 0.5).softmax(dim=-1)
    return att @ values


step = torch.compile(decode_step, mode="reduce-overhead")
proj = torch.nn.Linear(32, 96, device="cuda")
cache = KVCache(64, 32)
with torch.no_grad():
    for t in range(6):
        out = step(proj, cache, torch.randn(1, 32, device="cuda"), torch.tensor([t], device="cuda"))
torch.cuda.synchronize()
print(out.shape, cache.kv[:, :6].abs().sum().item() > 0)
