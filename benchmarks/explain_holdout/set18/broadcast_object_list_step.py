"""pytorch/pytorch PR #177891 ("[dynamo] Register ProcessGroup.group_desc as opaque type
member", https://github.com/pytorch/pytorch/pull/177891): ProcessGroup is an opaque object to
Dynamo, and a member missing from its registration ends the compile with
"UnsafeScriptObjectError: Attempted to access unregistered member on an OpaqueObject" instead of
a graph break. Here (gloo, one process, world size 1) a compiled training step agrees on an
early-stopping flag across ranks with dist.broadcast_object_list, a collective of Python objects;
tracing it reaches the process group's `_device_types`, and the first call ends with an
InternalTorchDynamoError from the broadcast_object_list line."""
import socket

import torch
import torch.distributed as dist

sock = socket.socket()
sock.bind(("127.0.0.1", 0))
port = sock.getsockname()[1]
sock.close()
dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile
def train_step(x, y, patience_left):
    loss = torch.nn.functional.mse_loss(model(x), y)
    flag = [patience_left == 0]
    dist.broadcast_object_list(flag, src=0)
    return loss, flag[0]


try:
    for step in range(3):
        loss, stop = train_step(torch.randn(4, 8), torch.randn(4, 1), 2 - step)
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} loss {loss.item():.4f} stop {stop}")
        if stop:
            break
finally:
    dist.destroy_process_group()
