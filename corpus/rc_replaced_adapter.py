# after pytorch/pytorch#120958: an nn.Module attribute replaced after compiling (diffusers' LoRA layers)
"""Recompile on a replaced object: a linear layer holds an optional adapter (`lora_layer`,
None at first, as diffusers' LoraCompatibleLinear does); after the first compiled call the
program installs an adapter module. Dynamo guarded on what the attribute held, so the next
call recompiles: the reason should name `lora_layer`, at the line that replaced it (the line
to change; capture keeps module attribute sets after a compile, session 44: it was the call
after it)."""
import torch


class AdaptedLinear(torch.nn.Linear):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lora_layer = None

    def set_lora_layer(self, layer):
        self.lora_layer = layer

    def forward(self, x):
        out = super().forward(x)
        if self.lora_layer is None:
            return out
        return out + self.lora_layer(x)


net = AdaptedLinear(4, 4)
compiled = torch.compile(net, backend="eager")
compiled(torch.randn(2, 4))
net.set_lora_layer(torch.nn.Linear(4, 4, bias=False))  # <- diagnosis
compiled(torch.randn(2, 4))
print("ok")
