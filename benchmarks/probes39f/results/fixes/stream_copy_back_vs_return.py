import torch
B, H = 5, 4
def f(state, ended):
    s = state.index_fill(1, ended, 0.0)
    state.copy_(s + s.flip(0))
def g(state, ended):
    s = state.index_fill(1, ended, 0.0)
    return s + s.flip(0)
cf, cg = torch.compile(f), torch.compile(g)
torch.manual_seed(0)
for ended in [torch.tensor([1, 4]), torch.tensor([0, 3]), torch.tensor([2, 4])]:
    st = torch.randn(2, B, H)
    a, b = st.clone(), st.clone(); f(a, ended); cf(b, ended)
    print('f', (a - b).abs().max().item(), 'g', (g(st.clone(), ended) - cg(st.clone(), ended)).abs().max().item())
