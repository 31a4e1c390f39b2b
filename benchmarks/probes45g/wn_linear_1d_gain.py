"""Hand-written weight-normalised linear layer (Salimans & Kingma) calling torch._weight_norm.

Source: pytorch/pytorch#191137 ("torch.compile crashes on
torch.ops.aten._weight_norm_interface"): eager accepts a 1-D gain g of shape (out,),
but the decomposition used under torch.compile broadcasts g wrongly and FakeTensor
propagation fails ("Attempting to broadcast a dimension of length ...").
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class WNLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        w = torch.randn(d_out, d_in) / d_in ** 0.5
        self.v = nn.Parameter(w)
        self.g = nn.Parameter(w.norm(dim=1))          # one gain per output row
        self.b = nn.Parameter(torch.zeros(d_out))

    def forward(self, x):
        w = torch._weight_norm(self.v, self.g, 0)
        return nn.functional.linear(x, w, self.b)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = WNLinear(20, 48)
        self.l2 = WNLinear(48, 3)

    def forward(self, x):
        return self.l2(torch.tanh(self.l1(x)))


def main():
    net = Net()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    cnet = torch.compile(net)
    x = torch.randn(64, 20)
    y = torch.randint(0, 3, (64,))
    for step in range(5):
        loss = nn.functional.cross_entropy(cnet(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.5f}")


if __name__ == "__main__":
    main()
