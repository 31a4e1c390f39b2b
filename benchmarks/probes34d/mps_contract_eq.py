import string
import torch

torch.manual_seed(0)

# Matrix product state of a 10-site spin chain; <Z_i> on every site.
N_SITES, BOND, PHYS = 10, 8, 2
mps = [torch.randn(1 if i == 0 else BOND, PHYS, 1 if i == N_SITES - 1 else BOND,
                   dtype=torch.float64) for i in range(N_SITES)]
Z = torch.tensor([[1.0, 0.0], [0.0, -1.0]], dtype=torch.float64)
I2 = torch.eye(2, dtype=torch.float64)
BRA = string.ascii_lowercase
KET = string.ascii_uppercase


@torch.compile
def contract(eq, a, b):
    return torch.einsum(eq, a, b)


def sandwich(ops):
    env = torch.ones(1, 1, dtype=torch.float64)
    for site, (tensor, op) in enumerate(zip(mps, ops)):
        l, r, L, R = BRA[site], BRA[site + 1], KET[site], KET[site + 1]
        ket = contract(f"st,{L}t{R}->{L}s{R}", op, tensor)
        env = contract(f"{l}{L},{l}s{r}->{L}s{r}", env, tensor)
        env = contract(f"{L}s{r},{L}s{R}->{r}{R}", env, ket)
    return env.squeeze()


norm = sandwich([I2] * N_SITES)
for i in range(N_SITES):
    ops = [I2] * N_SITES
    ops[i] = Z
    print(f"site {i}: <Z> = {(sandwich(ops) / norm).item():+.6f}")
