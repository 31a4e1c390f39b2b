"""Configuration module for the attention blocks, written the way ParaAttention
(para_attn/config.py) and torch._inductor.config are: plain class attributes turned into a
patchable config module by torch's own config-module machinery."""
import sys

from torch.utils._config_module import install_config_module


class attention:
    # compute softmax(QK^T) in the input dtype instead of float32
    allow_reduced_precision_compute = False
    # scale applied to the logits before softmax (None: 1/sqrt(head_dim))
    softmax_scale = None


install_config_module(sys.modules[__name__])
