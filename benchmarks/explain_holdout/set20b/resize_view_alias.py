"""A score buffer grown through a flat view of it, in a compiled helper.

From pytorch/pytorch#191449 (open, 2026-07-29, "Incorrect compiled output when calling
.resize_() on a view/alias"; labels module: aotdispatch, module: correctness (silent)): a
function makes a fresh tensor, takes a flat view of it and calls `.resize_()` on the view,
then returns arithmetic on the original tensor. Eager keeps the original's shape (the resize
changes only the view); under torch.compile Dynamo breaks the graph at `resize_()` (GB0126)
and the code after the break returns a tensor of the view's new size, filled from memory
nobody wrote. aot_eager is right, Inductor is wrong (the thread's analysis).

Here the helper pads a row of logits into a 12-slot scratch handle for a later kernel and
returns the shifted scores. The program prints both results' shapes; it does not compare them.
"""
import torch

torch.manual_seed(0)


def shift_scores(logits):
    scores = logits + 1
    scratch = scores.view(-1)
    scratch.resize_(12)
    return scores + 1


compiled_shift = torch.compile(shift_scores)

logits = torch.zeros(1)
eager = shift_scores(logits.clone())
out = compiled_shift(logits.clone())
print("eager   :", tuple(eager.shape), eager[0].item())
print("compiled:", tuple(out.shape), out[0].item())
