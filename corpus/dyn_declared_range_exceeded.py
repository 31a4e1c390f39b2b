"""Dynamic shapes (a declared range a later input leaves): each batch of token ids is padded to
its longest sequence, and the sequence dimension is marked dynamic with the model's context
size as its bound, `mark_dynamic(tokens, 1, min=2, max=32)`; one batch holds a longer document.
Dynamo then fails the compile with ConstraintViolationError ("40 not in range [2, 32]"), not
a recompile: the failure is at the mark_dynamic call whose range the size left (this docstring
quotes it, and is not that line), and the recompile that led to it is the same finding.

The class of benchmarks/probes27's dyn_mark_dynamic_max (the lead's run pointed at its
module docstring, and showed the recompile as a problem of its own, whose fix was the
mark_dynamic call that caused the failure)."""
import torch

emb = torch.nn.Embedding(50, 8)


@torch.compile
def encode(tokens):
    return emb(tokens).mean(dim=1)


torch.manual_seed(0)
for length in (6, 11, 40):
    tokens = torch.randint(0, 50, (2, length))
    torch._dynamo.mark_dynamic(tokens, 1, min=2, max=32)  # <- diagnosis
    with torch.no_grad():
        print(tuple(encode(tokens).shape))
