"""pytorch/pytorch#173452 ("Feature request: Support forward hooks with torch.compile
fullgraph=True for capturing intermediate activations",
https://github.com/pytorch/pytorch/issues/173452, open). A knowledge-distillation step captures
the student's hidden state with a forward hook and skips the capture while tracing, as the
issue's user did (`if torch.compiler.is_compiling(): return`). Dynamo traces the hook into the
fullgraph-compiled student with is_compiling() True, so the early return is baked into the
compiled code: at run time the hook never stores anything, and the distillation loss that reads
the captured activation ends the first step with a KeyError."""
import torch
import torch.nn as nn
import torch.nn.functional as F

captured = {}


def capture_hidden(module, inputs, output):
    if torch.compiler.is_compiling():
        return
    captured["hidden"] = output


class Student(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(16, 32)
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        return self.head(torch.relu(self.encoder(x)))


teacher_hidden_proj = nn.Linear(32, 32)
student = Student()
student.encoder.register_forward_hook(capture_hidden)
compiled_student = torch.compile(student, fullgraph=True)
opt = torch.optim.AdamW(student.parameters(), lr=1e-3)

for step in range(3):
    x, labels = torch.randn(8, 16), torch.randint(0, 4, (8,))
    teacher_hidden = teacher_hidden_proj(torch.randn(8, 32)).detach()
    logits = compiled_student(x)
    hidden_loss = F.mse_loss(captured["hidden"], teacher_hidden)
    loss = F.cross_entropy(logits, labels) + hidden_loss
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, float(loss))
