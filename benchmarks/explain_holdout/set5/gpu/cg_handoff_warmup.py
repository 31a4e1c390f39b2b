"""pytorch/pytorch#122192 ("extra checks for reduce-overhead inconsistent when warmup/recording",
https://github.com/pytorch/pytorch/issues/122192, open): with two functions compiled with
mode="reduce-overhead", the output of the second one's second call (its recording run) passed
to the first one ends in "Error: accessing tensor output of CUDAGraphs that has been overwritten
by a subsequent run"; with three calls in the loop instead of two there is no error."""
import torch

cfn = torch.compile(torch.sin, mode="reduce-overhead")
cfn2 = torch.compile(torch.cos, mode="reduce-overhead")
for _ in range(2):
    x = cfn2(torch.randn(5).cuda())
y = cfn(x)
torch.cuda.synchronize()
print(y)
