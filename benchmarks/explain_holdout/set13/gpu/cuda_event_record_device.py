"""pytorch/pytorch#176486 ("RuntimeError: Event device type CPU does not match recording stream's
device type", https://github.com/pytorch/pytorch/issues/176486, open): a compiled function records
a torch.cuda.Event made outside it. Eager records it on the current CUDA stream; under
torch.compile Dynamo traces the record into the graph as a torch.ops.streams op, and when the
compiled graph runs the event it records with has no CUDA device type, so the call raises
"Event device type CPU does not match recording stream's device type CUDA". Torch's traceback
names the decorated function and the AOTAutograd runtime wrappers; the user's line that does it
is the event.record() in the compiled function (issue 29 section 1, CUDA streams and events).

Why it should still reproduce on torch 2.11: the issue is open; NVIDIA/TensorRT-LLM PR #12692
(April 2026) disables its multi-stream path under torch.compile because "PyTorch 2.11 has a bug
(pytorch/pytorch#176486) where dynamo captures CUDA stream/event operations and converts them into
torch.ops.streams.* nodes ... causing 'Event device type CPU does not match recording stream's
device type CUDA' errors". The script is the issue's own repro, with a print."""
import torch

event = torch.cuda.Event()


@torch.compile
def step(x):
    event.record()
    return x + 1


out = step(torch.tensor(1.0, device="cuda"))
torch.cuda.synchronize()
print(out.item())
