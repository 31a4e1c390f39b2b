import torch
torch._dynamo.config.capture_scalar_outputs = True

torch.manual_seed(0)
L = 32


@torch.compile
def sweep(spins, beta, parity):
    neighbours = (torch.roll(spins, 1, 0) + torch.roll(spins, -1, 0)
                  + torch.roll(spins, 1, 1) + torch.roll(spins, -1, 1))
    dE = 2 * spins * neighbours
    accept = torch.rand_like(spins) < torch.exp(-beta * dE)
    accept = accept & parity
    n_flipped = int(accept.sum())
    return torch.where(accept, -spins, spins), n_flipped


ii, jj = torch.meshgrid(torch.arange(L), torch.arange(L), indexing="ij")
checker = ((ii + jj) % 2 == 0)
spins = torch.where(torch.rand(L, L) < 0.5, -1.0, 1.0)
beta = 0.6
flips = 0
for it in range(200):
    spins, n = sweep(spins, beta, checker if it % 2 == 0 else ~checker)
    flips += n
    if it % 50 == 49:
        print(f"sweep {it + 1}: magnetisation {spins.mean().item():+.3f}, flips so far {flips}")
