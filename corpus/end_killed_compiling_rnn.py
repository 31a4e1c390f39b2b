# after pytorch/pytorch#97155: a custom recurrent cell in a Python loop over the sequence takes minutes to compile (Dynamo unrolls every step), and a time limit kills the job while it compiles
"""Abnormal end while compiling: a hand-written GRU-like cell stepped over a 2,000-long
sequence in a Python loop; Dynamo unrolls the loop into one huge graph, and the job's time
limit (here a watchdog thread of the program's own sending SIGTERM after 3 s, as a scheduler
would from outside) stops the process before the first call has finished compiling. Nothing
of the user's is on the stack faulthandler dumps; the compile that never finished says where
the run was, and the loop Dynamo unrolled is the cause."""
import os
import signal
import threading

import torch


class LiGRU(torch.nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.w = torch.nn.Linear(d, 2 * d)
        self.u = torch.nn.Linear(d, 2 * d, bias=False)

    def forward(self, x):
        h = torch.zeros(x.shape[0], x.shape[2])
        for t in range(x.shape[1]):
            a, z = (self.w(x[:, t]) + self.u(h)).chunk(2, dim=-1)
            h = torch.sigmoid(z) * h + (1 - torch.sigmoid(z)) * torch.relu(a)
        return h


model = torch.compile(LiGRU(16))
threading.Timer(3.0, os.kill, (os.getpid(), signal.SIGTERM)).start()  # the job's time limit
out = model(torch.randn(2, 2000, 16))  # <- diagnosis
print(out.sum())
