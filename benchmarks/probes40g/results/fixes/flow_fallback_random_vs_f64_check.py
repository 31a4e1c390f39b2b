import torch
torch._inductor.config.fallback_random = True
def nb(x0):
    t = torch.rand(x0.shape[0], 1, dtype=x0.dtype)
    noise = torch.randn_like(x0)
    xt = (1 - t) * x0 + t * noise
    return xt, t, noise
torch.manual_seed(0); x0 = torch.randn(4096, 32, dtype=torch.bfloat16)
torch.manual_seed(1); e = nb(x0)
torch.manual_seed(1); c = torch.compile(nb)(x0)
print('t equal', torch.equal(e[1], c[1]), 'noise equal', torch.equal(e[2], c[2]))
t, noise = e[1].double(), e[2].double()
ref = (1 - t) * x0.double() + t * noise
print('eager max abs err vs f64', (e[0].double()-ref).abs().max().item(), 'compiled', (c[0].double()-ref).abs().max().item())
print('eager rmse', (e[0].double()-ref).pow(2).mean().sqrt().item(), 'compiled', (c[0].double()-ref).pow(2).mean().sqrt().item())
