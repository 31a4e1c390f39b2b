"""pytorch/pytorch#194234 ("[dynamo] torch.compile raises NameError: name 'stream1' is not defined
when a compiled function calls torch.cuda.Stream.wait_stream and returns a single-element list
constant", https://github.com/pytorch/pytorch/issues/194234, open, module: compiled streams): a
compiled function creates a CUDA stream, makes it wait (here on itself) and returns a constant
tensor. Eager returns tensor([1.]); under torch.compile Dynamo records the stream and its
wait_stream in the graph as stream objects and ops, and the code it generates names the stream
('stream1') without defining it, so the first call fails with NameError. The user's line that
brings the stream op in is the wait_stream call (issue 29 section 1, CUDA streams inside compiled
code).

Why it should still reproduce on torch 2.11: the issue reproduces on 2.13.0+cu130 and on the
2.15.0.dev20260817 nightly and is open; Dynamo's capture of stream and event operations as
torch.ops.streams nodes is already in 2.11 (NVIDIA/TensorRT-LLM PR #12692, April 2026: "PyTorch
2.11 ... dynamo captures CUDA stream/event operations and converts them into torch.ops.streams.*
nodes"). Less certain than a by-design case: the 2.11 code path was not read (see README)."""
import torch


def fn():
    s = torch.cuda.Stream()
    s.wait_stream(s)
    return torch.tensor([1.0])


print("eager:", fn())
torch._dynamo.reset()
print("compiled:", torch.compile(fn)())
