"""pytorch/pytorch#174167 ("Segfault in executing the rnn_tanh operator",
https://github.com/pytorch/pytorch/issues/174167, closed): aten.rnn_tanh on bfloat16 CUDA tensors
with a `batch_sizes` tensor that is not a valid packed-sequence description, called through
torch.compile(backend="eager"), kills the process with a segmentation fault instead of raising.
The issue's repro (CUDA)."""
import torch


def model_func(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional):
    out = torch.ops.aten.rnn_tanh(data, batch_sizes=batch_sizes, hx=hx, params=params, has_biases=has_biases, num_layers=num_layers, dropout=dropout, train=train, bidirectional=bidirectional)
    return out


input_config = {
    "data": torch.randn([15, 8, 32], dtype=torch.bfloat16, device="cuda"),
    "batch_sizes": torch.randint(0, 3, [5, 5, 5], dtype=torch.int64, device="cuda"),
    "hx": torch.randn([1, 8, 64], dtype=torch.bfloat16, device="cuda"),
    "params": [torch.randn([128, 32], dtype=torch.bfloat16, device="cuda"),
               torch.randn([128, 64], dtype=torch.bfloat16, device="cuda")],
    "has_biases": False, "num_layers": 1, "dropout": 0.0, "train": False, "bidirectional": False,
}

compiled_eager = torch.compile(model_func, backend="eager")
out1 = compiled_eager(**input_config)
print(type(out1))
