"""pytorch/pytorch#181851 ("register_fake to throw error if signature doesn't match op's schema",
https://github.com/pytorch/pytorch/issues/181851, open): a fake (meta) implementation registered
with fewer arguments than the custom op is accepted silently, and only fails when torch.compile
runs it. Here an audio model's upsampling helper calls a torch.library custom op
`repeat_frames(x, factor)` whose fake kernel forgot `factor`. Eager runs the real kernel and
works; the fullgraph compile ends with "TypeError when making fake tensor call ...
repeat_frames_fake() takes 1 positional argument but 2 were given", at the op's call inside the
helper."""
import torch

torch.manual_seed(0)


@torch.library.custom_op("set19::repeat_frames", mutates_args=())
def repeat_frames(x: torch.Tensor, factor: int) -> torch.Tensor:
    return x.repeat_interleave(factor, dim=-1)


@repeat_frames.register_fake
def repeat_frames_fake(x):
    return torch.empty_like(x)


def upsample_block(h, conv):
    h = repeat_frames(h, 2)
    return torch.nn.functional.gelu(conv(h))


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv1d(8, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv1d(8, 1, 3, padding=1)

    def forward(self, z):
        h = upsample_block(z, self.conv1)
        return upsample_block(h, self.conv2)


decoder = Decoder()
z = torch.randn(2, 8, 16)
print("eager", decoder(z).shape)
compiled = torch.compile(decoder, fullgraph=True)
print("compiled", compiled(z).shape)
