"""Attention-pooling text classifier whose per-head bias row is built with expand().

The positional bias is shared by every head, so the forward expands it to (heads, L)
and then bumps the [CLS] column in place "for every head". The model is only ever run
through torch.compile in this inference script.

Source: PyTorch test test/dynamo/test_aot_autograd.py::
AotAutogradFallbackTests::test_aot_autograd_expand_mutation_error (@expectedFailure:
"We don't know how to catch multiple mutations to the same memory location").
"""
import torch
import torch.nn as nn

torch.manual_seed(0)

SEQ_LEN, N_HEADS, D = 12, 4, 16
CLS_BONUS = 0.5


class AttnPoolClassifier(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.register_buffer("pos_bias", torch.linspace(-1.0, 0.0, SEQ_LEN))
        self.query = nn.Parameter(torch.randn(N_HEADS, D) / D**0.5)
        self.out = nn.Linear(N_HEADS * D, n_classes)

    def forward(self, tokens):  # tokens: (batch, L, D)
        bias = self.pos_bias.expand(N_HEADS, SEQ_LEN)  # same bias row for every head
        bias[:, 0].add_(CLS_BONUS)  # every head should favour the [CLS] slot
        scores = torch.einsum("hd,bld->bhl", self.query, tokens) + bias
        attn = scores.softmax(dim=-1)
        pooled = torch.einsum("bhl,bld->bhd", attn, tokens).flatten(1)
        return self.out(pooled), attn[:, :, 0].mean()


model = AttnPoolClassifier().eval()
cmodel = torch.compile(model)

with torch.no_grad():
    for batch in range(3):
        tokens = torch.randn(8, SEQ_LEN, D)
        logits, cls_attn = cmodel(tokens)
        print(
            f"batch {batch}: pred={logits.argmax(-1).tolist()} "
            f"cls attention={cls_attn.item():.4f} cls bias={model.pos_bias[0].item():.3f}"
        )
