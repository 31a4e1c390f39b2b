"""pytorch/pytorch#148866: "[Inductor] Core dumped due to invalid next size". A model mixing
normal sampling, ldl_solve and max_unpool3d with random indices runs in eager and aborts the
process once compiled (`free(): invalid next size (fast)`)."""
import torch


class TestModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(10, 10)

    def forward(self, x):
        mean = torch.zeros(10, 10)
        std = torch.ones(10, 10)
        random_data = torch.normal(mean, std)
        LD = torch.randn(10, 10)
        pivots = torch.randint(0, 10, (10,))
        B = torch.randn(10, 10)
        ldl_solution = torch.linalg.ldl_solve(LD, pivots, B)
        input_unpool = torch.randn(1, 1, 10, 10, 10)
        indices = torch.randint(0, 10, (1, 1, 10, 10, 10))
        unpooled = torch.nn.functional.max_unpool3d(input_unpool, indices, kernel_size=2)
        combined = self.linear(x) + random_data + ldl_solution + unpooled.mean()
        return combined


model = TestModel()
inputs = torch.randn(1, 10)
res = model(inputs)
compiled_model = torch.compile(model, backend="inductor")
compiled_out = compiled_model(inputs)
print(compiled_out.shape)
