"""pytorch/pytorch PR #191110 ("[AOTAutograd] Key ambient autocast dtype for in-graph autocast
without explicit dtype", open), whose review (2026-08-03) shows the hole one layer up in
Dynamo: a compiled function that enters `torch.autocast(device)` without a dtype bakes the
process default (`torch.get_autocast_dtype`) into its graph, and Dynamo's global-state guard
(guards.cpp AutocastState::operator==: "If disabled autocast, autocast_dtype comparison not
occur") ignores the default dtype while autocast is off outside the function. After
`torch.set_autocast_dtype("cuda", torch.float16)` the compiled function keeps returning
bfloat16, where eager returns float16: the program's own check against eager fails. Should
reproduce on torch 2.11: the guard's comparison is unchanged since global autocast state was
first guarded (2024) and the review found it open on main in August 2026; a CPU run of the
review's snippet on torch 2.13 shows the stale dtype (bfloat16 bfloat16, then bfloat16
float16). set3's `ambient_autocast_recompile` is the neighbour: there autocast's enabled flag
changes and torch recompiles; here only the default dtype changes and torch does not."""
import torch


def scores(q, k):
    with torch.autocast("cuda"):  # no dtype: the process default at trace time
        return q @ k.transpose(-1, -2)


compiled = torch.compile(scores)
q = torch.randn(4, 128, 64, device="cuda")
k = torch.randn(4, 128, 64, device="cuda")

torch.set_autocast_dtype("cuda", torch.bfloat16)  # training phase: bf16
train_out = compiled(q, k)
torch.set_autocast_dtype("cuda", torch.float16)  # evaluation phase: fp16
eval_out = compiled(q, k)
torch.cuda.synchronize()
print(train_out.dtype, eval_out.dtype, scores(q, k).dtype)
torch.testing.assert_close(eval_out, scores(q, k))
