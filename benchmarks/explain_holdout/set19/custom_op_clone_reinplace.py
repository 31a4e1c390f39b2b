"""pytorch/pytorch#198031 ("[inductor] y = x.clone(); op(y, x) becomes op(x, x) for custom ops
and user-defined Triton kernels that mutate x: silent wrong results",
https://github.com/pytorch/pytorch/issues/198031, open). A frame history buffer is shifted by
one slot with a torch.library custom op that copies a snapshot (a clone) of the buffer into the
buffer itself, shifted. Inductor's reinplacing drops the clone, so the compiled op reads the
slots it is overwriting: every slot ends up holding the oldest frame. Eager keeps the history;
the compiled function silently returns a different mean, with no error."""
import torch

torch.manual_seed(0)


@torch.library.custom_op("set19::shift_into", mutates_args=("dst",))
def shift_into(src: torch.Tensor, dst: torch.Tensor) -> None:
    for k in range(src.shape[0] - 1):
        dst[k + 1] = src[k]


def push_frame(history, frame):
    snapshot = history.clone()
    shift_into(snapshot, history)
    history[0] = frame
    return history


def smoothed(history, frame):
    return push_frame(history, frame).mean(dim=0)


compiled_smoothed = torch.compile(smoothed)

frames = torch.arange(1.0, 7.0).repeat_interleave(3).view(6, 3)
hist_eager = torch.zeros(4, 3)
hist_compiled = torch.zeros(4, 3)
for frame in frames:
    out_eager = smoothed(hist_eager, frame)
    out_compiled = compiled_smoothed(hist_compiled, frame)
    print("eager", out_eager.tolist(), "compiled", out_compiled.tolist())
