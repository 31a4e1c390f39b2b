import torch
torch.manual_seed(0)
exec(open('/work/wt39g/benchmarks/probes39g/zscore_onepass_price.py').read().split('class PriceNet')[0])
prices = 1000.0 + torch.cumsum(torch.randn(4, 96) * 0.5, dim=1)
e = normalise(prices); c = torch.compile(normalise)(prices); r = normalise(prices.double())
for name, a, b, rr in zip(("z", "m", "var"), e, c, r):
    print(name, "eager-vs-comp", (a - b).abs().max().item(), "eager-vs-f64", (a.double() - rr).abs().max().item(), "comp-vs-f64", (b.double() - rr).abs().max().item())
print("var f64", r[2].flatten().tolist()); print("var eager", e[2].flatten().tolist()); print("var comp", c[2].flatten().tolist())
