"""pytorch/pytorch#196226 ("Inductor `assert_alignment` crash on a suppressed fallback output",
https://github.com/pytorch/pytorch/issues/196226, open): torch._native_multi_head_attention with
need_weights=False compiled by Inductor on CUDA; the generated wrapper emits assert_alignment on
the op's second (suppressed, undefined) output and the compiled call raises "TypeError: expected
Tensor() for op: torch.ops.aten._native_multi_head_attention.default", while eager and the CPU
compile both run. The script is the issue's, eager first."""
import torch


def fn(q, k, v, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias, mask,
       need_weights):
    return torch._native_multi_head_attention(q, k, v, embed_dim, num_heads, qkv_weight,
                                              qkv_bias, proj_weight, proj_bias, mask,
                                              need_weights)


embed_dim, num_heads = 6, 2
dev = "cuda"
mk = lambda *s: torch.randn(*s, device=dev)  # noqa: E731
inps = [mk(1, 3, embed_dim), mk(1, 3, embed_dim), mk(1, 3, embed_dim), embed_dim, num_heads,
        mk(3 * embed_dim, embed_dim), mk(3 * embed_dim), mk(3 * embed_dim, embed_dim),
        mk(3 * embed_dim), None, False]
print(fn(*inps)[0].shape)
out = torch.compile(fn)(*inps)
print(out[0].shape)
