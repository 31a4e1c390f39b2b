import runpy, torch, sys
sys.argv = ["x"]
src = open("/work/wt38g/benchmarks/probes38g/tgn_memory_last_write.py").read().split("model = Memory()")[0]
g = {}; exec(src, g)
torch.manual_seed(1)
m = g["Memory"]().eval()
src_i = torch.randint(0, 30, (200,)); dst = torch.randint(0, 30, (200,)); t = torch.sort(torch.rand(200)).values
with torch.no_grad():
    outs = [m(torch.zeros(30, 16), src_i, dst, t) for _ in range(5)]
    print("eager vs eager, 5 calls same inputs, max diff:", max((o - outs[0]).abs().max().item() for o in outs))
    torch.set_num_threads(1)
    outs = [m(torch.zeros(30, 16), src_i, dst, t) for _ in range(5)]
    print("1 thread:", max((o - outs[0]).abs().max().item() for o in outs))
