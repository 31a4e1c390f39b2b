"""The minify benchmark's scenarios, modelled on PyTorch's test/inductor/test_minifier.py and
test/dynamo/test_minifier.py. Each is a program body (run as a script) plus the Inductor
injector that breaks it; `kind` is how the failure shows: compile_error, runtime_error or
accuracy (found by comparing against eager)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scenario:
    name: str
    kind: str                 # compile_error | runtime_error | accuracy | crash
    config: dict[str, str]    # torch._inductor.config attribute -> value
    code: str

    def script(self, prelude: str = "") -> str:
        lines = ["import torch", "import torch._inductor.config as inductor_config", prelude]
        config = [f"inductor_config.{k} = {v!r}" for k, v in self.config.items()]
        if "{config}" in self.code:  # set where the code says (after the forward compiled)
            return "\n".join(lines) + "\n" + self.code.replace("{config}", "\n".join(config))
        return "\n".join(lines + config) + "\n" + self.code


_RELU_COS = """
@torch.compile()
def inner(x):
    x = torch.relu(x)
    x = torch.cos(x)
    return x

inner(torch.randn(20, 20))
"""

_SIN_RELU_COS = """
@torch.compile()
def inner(x):
    for _ in range(10):
        x = torch.sin(x)
    x = torch.relu(x)
    for _ in range(10):
        x = torch.cos(x)
    return x

inner(torch.randn(20, 20))
"""

_LOG1P = """
@torch.compile()
def inner(x):
    y = torch.log1p(x)
    b = y > 0
    b = torch.logical_not(b)
    b = torch.logical_not(b)
    x = torch.relu(x)
    return torch.where(b, x, x)

inner(torch.randn(20))
"""

_MODULE = """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64),
                            torch.nn.Tanh(), torch.nn.Linear(64, 8))
with torch.no_grad():
    torch.compile(model)(torch.randn(16, 32))
"""

_TRAIN = """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
cmodel = torch.compile(model)
x, y = torch.randn(16, 32), torch.randn(16, 8)
for _ in range(2):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(cmodel(x), y)
    loss.backward()
    opt.step()
"""

# The backward graph, which AOTAutograd compiles lazily at the first backward(): the injector
# is set after the forward compiled, so only the backward graph (where Inductor recomputes
# relu) has the bug.
_BACKWARD = """
def step(x, y):
    h = torch.sin(x)
    h = torch.relu(h)
    h = torch.cos(h) * y
    return h.sum()

x = torch.randn(20, 20, requires_grad=True)
y = torch.randn(20, 20, requires_grad=True)
loss = torch.compile(step)(x, y)
{config}
loss.backward()
"""

# A real wrong gradient, no injector: pytorch/pytorch#186799 (corpus/acc_grad_atan2_amin.py).
# The backward recomputes atan2 and masks the gradient by exact equality with the saved amin;
# Inductor's CPU atan2 in the backward's reduction differs from the forward's in the last bits.
_ATAN2_AMIN = """
def fn(x, y):
    return torch.atan2(x, y).amin(dim=-1)

torch.manual_seed(0)
x = torch.randn(2, 3, requires_grad=True)
y = torch.randn(2, 3)
torch.compile(fn)(x, y).sum().backward()
"""

_RELU = "cpp.inject_relu_bug_TESTING_ONLY"
SCENARIOS = [
    Scenario("relu_compile_error", "compile_error", {_RELU: "compile_error"}, _RELU_COS),
    Scenario("relu_runtime_error", "runtime_error", {_RELU: "runtime_error"}, _RELU_COS),
    Scenario("relu_accuracy", "accuracy", {_RELU: "accuracy"}, _RELU_COS),
    Scenario("log1p_relu_accuracy", "accuracy",
             {_RELU: "accuracy", "cpp.inject_log1p_bug_TESTING_ONLY": "accuracy"}, _LOG1P),
    Scenario("sin10_relu_cos10", "compile_error", {_RELU: "compile_error"}, _SIN_RELU_COS),
    Scenario("module_params", "accuracy", {_RELU: "accuracy"}, _MODULE),
    Scenario("training_step", "compile_error", {_RELU: "compile_error"}, _TRAIN),
    # the same injected `throw` aborts the process in training mode (std::terminate)
    Scenario("training_crash", "crash", {_RELU: "runtime_error"}, _TRAIN),
    Scenario("backward_compile_error", "compile_error", {_RELU: "compile_error"}, _BACKWARD),
    Scenario("backward_runtime_error", "runtime_error", {_RELU: "runtime_error"}, _BACKWARD),
    Scenario("backward_accuracy", "accuracy", {_RELU: "accuracy"}, _BACKWARD),
    Scenario("backward_atan2_amin", "accuracy", {}, _ATAN2_AMIN),
]
