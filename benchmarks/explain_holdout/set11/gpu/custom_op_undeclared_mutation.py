"""pytorch/pytorch#129372 ("[custom_op] Add a `mutated_args="unknown"` flag",
https://github.com/pytorch/pytorch/issues/129372): a torch.library.custom_op "must specify what
inputs [it is] mutating in the mutates_args param, otherwise, there is undefined behavior", its
example being an op that mutates x in place with mutates_args={}. #187319 (open, high priority)
names the behaviour: "for a custom op that returns None, Inductor may eliminate the op when
mutates_args is empty". Here a CUDA op that scales its input in place returns None and declares
no mutation: eager doubles x before the add (3.0), the compiled function drops the op (2.0),
silently. Should reproduce on torch 2.11: the schema is what marks an op impure, documented as
undefined behaviour since custom_op's first release (2.4) and unchanged in 2.13; a plain run with
'cpu' for 'cuda' (torch 2.13.0+cpu) prints eager 3.0, compiled 2.0, Dynamo's graph still holding
s11.scale_ at the call's line. The script prints both results."""
import torch


@torch.library.custom_op("s11::scale_", mutates_args=())
def scale_(x: torch.Tensor) -> None:
    x.mul_(2)


@scale_.register_fake
def _(x):
    return None


def f(x):
    scale_(x)
    return x + 1


eager = f(torch.ones(4, device="cuda"))
compiled = torch.compile(f)(torch.ones(4, device="cuda"))
print("eager   :", eager.tolist())
print("compiled:", compiled.tolist())
