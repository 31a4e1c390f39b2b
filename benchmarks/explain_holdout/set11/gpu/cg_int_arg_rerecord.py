"""pytorch/pytorch#119579 ("Potential re-tracing of CUDA graphs due to spurious SymInt inputs",
https://github.com/pytorch/pytorch/issues/119579, module: cuda graphs): "We currently support
dynamic shapes + cuda graphs by re-recording the cuda graph for each concrete size we see. Every
integer input is incorporated as part of the integer key", so "if you have [an] int input that
is varying from run to run ... it WILL impede cuda graphs". Here the int is live, not dead: a
decode step under mode="reduce-overhead" takes the position as a Python int. Its second value
makes Dynamo compile it as a SymInt (one recompile), and from then on cudagraph trees record a
new CUDA graph for every position; past cudagraph_dynamic_shape_warn_limit (8) torch warns "We
have observed 9 distinct sizes" although no size changed. Should reproduce on torch 2.11: the
int key of cudagraphify_impl (since PR #105064, 2023) and the warning (PR #131387, 2024) are
unchanged in 2.13's cudagraph_trees.py / cudagraph_utils.py. A plain CPU run (torch 2.13)
compiles twice, the second graph taking `L_token_pos_: Sym(s..)`."""
import torch


def decode_step(x, w, token_pos):
    angle = (torch.arange(x.shape[-1], device=x.device) + token_pos) * 1e-3
    return (x @ w) * torch.cos(angle)


step = torch.compile(decode_step, mode="reduce-overhead")
x = torch.randn(4, 64, device="cuda")
w = torch.randn(64, 64, device="cuda")
for token_pos in range(2, 14):
    out = step(x, w, token_pos)
torch.cuda.synchronize()
print(out.shape)
