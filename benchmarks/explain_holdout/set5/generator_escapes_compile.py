"""pytorch/pytorch#198190 ("[dynamo] A generator that leaves a compiled region (returned, or
alive across a graph break) comes back as an exhausted `tuple_iterator`",
https://github.com/pytorch/pytorch/issues/198190, open): the compiled function returns the
generator's remaining yields as a tuple_iterator instead of the generator, so the caller's
.send() raises AttributeError where eager works; on torch 2.13 the plain run ends with
"AttributeError: 'tuple_iterator' object has no attribute 'send'" at the .send line."""
import torch


def make(x):
    def gen():
        yield x * 1
        yield x * 2
        return "done"
    return gen()


x = torch.ones(2)
it = make(x)
print("eager", type(it).__name__, next(it), it.send(None))
it = torch.compile(make)(x)
print("compiled", type(it).__name__, next(it))
second = it.send(None)
print("compiled second", second)
