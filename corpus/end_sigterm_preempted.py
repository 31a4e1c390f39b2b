# after pytorch/pytorch#68258: TorchElastic (like a job scheduler preempting a job) sends the training process SIGTERM, then SIGKILL
"""Abnormal end: a compiled training loop is preempted by SIGTERM between steps (here the
program sends it to itself after the second step, as a scheduler would from outside). The
process dies by the signal, exit status unchanged; the ending is placed at the user line that
was running when it arrived, from the Python stack faulthandler dumped for it."""
import os
import signal

import torch

model = torch.nn.Linear(8, 8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
step = torch.compile(lambda x: model(x).relu().sum())
for i in range(4):
    step(torch.randn(4, 8)).backward()
    opt.step()
    if i == 1:
        os.kill(os.getpid(), signal.SIGTERM)  # <- diagnosis
print("ok")
