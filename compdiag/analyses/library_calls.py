"""Which calls inside a compiled graph are library kernels by design, not fallbacks: cuBLAS /
cuDNN matmuls and convolutions (`extern_kernels.mm`, `aten.convolution`), SDPA's flash,
memory-efficient and cuDNN attention, oneDNN on the CPU, and NCCL collectives. They are the
fast path Inductor chose to call; only an op Inductor could have generated code for, but did
not, is a fallback limiter (analyses/perf.py, diagnoses/perf_hints.py)."""

from __future__ import annotations

import re

# (the pattern, what it is), as data; matched against 'extern_kernels.mm', 'aten.addmm',
# 'aten._scaled_dot_product_efficient_attention', '_c10d_functional.all_reduce', ...
LIBRARY_OPS: tuple[tuple[str, str], ...] = (
    (r"mm|addmm|bmm|baddbmm|addbmm|_int_mm|_scaled_mm|_scaled_grouped_mm|linear|matmul",
     "BLAS matmul (cuBLAS / oneDNN)"),
    (r"convolution\w*|cudnn_convolution\w*|miopen\w*|mkldnn\w*|_convolution",
     "convolution (cuDNN / oneDNN)"),
    (r"_scaled_dot_product\w*|_flash_attention\w*|_efficient_attention\w*|"
     r"_cudnn_attention\w*|scaled_dot_product_attention", "SDPA attention kernel"),
    (r"cudnn\w*|_cudnn_rnn\w*|_thnn_fused\w*", "cuDNN kernel"),
    (r"all_reduce\w*|all_gather\w*|reduce_scatter\w*|all_to_all\w*|broadcast_?\w*|"
     r"wait_tensor|_c10d_functional\w*|c10d\w*", "NCCL collective"),
)
_LIBRARY = re.compile(r"(?:^|[.\s])(?:" + "|".join(p for p, _ in LIBRARY_OPS) + r")(?:\.\w+)?$")


def is_library_call(name: str | None) -> bool:
    """'extern_kernels.mm', 'aten._scaled_dot_product_efficient_attention', 'addmm' ..."""
    text = (name or "").strip()
    text = re.sub(r"^(?:torch\.ops\.)?", "", text)
    return bool(_LIBRARY.search(text) or _LIBRARY.search("." + text))
