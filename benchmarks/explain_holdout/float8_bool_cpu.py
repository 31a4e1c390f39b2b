"""pytorch/pytorch#178095: "[Inductor CPU] Compilation fails when converting bool to
float8_e4m3fn dtype". Eager converts; the compiled CPU kernel for the conversion fails to
build and the program ends with the error."""
import torch


def f(x):
    return x.to(torch.float8_e4m3fn)


x = torch.tensor([True, False, True, True])
compiled = torch.compile(f)
output = compiled(x)
print(output)
