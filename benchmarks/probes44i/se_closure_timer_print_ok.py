"""An inference server loop with a closure-based request counter (nonlocal, bumped
by the wrapper outside the compiled function), a timing wrapper, a reorderable debug print of a tensor inside the
compiled function (torch._dynamo.config.reorderable_logging_functions), a
generator that chunks the request inside the compiled function, and a latency log
file.  Correct program: compiles with fullgraph=True; nothing to flag."""
import os, time
import torch
import torch.nn as nn

OUT = os.environ.get("PROBE_OUT", "probe_out")
os.makedirs(OUT, exist_ok=True)
torch._dynamo.config.reorderable_logging_functions.add(print)


def chunks(x, n):
    for i in range(n):
        yield x[i::n]


def make_server(model):
    served = 0

    @torch.compile(fullgraph=True)
    def infer(x):
        parts = [model(c) for c in chunks(x, 2)]
        out = torch.cat(parts).softmax(-1)
        print("debug max prob", out.max())
        return out

    def serve(x):
        nonlocal served          # counted outside the compiled function
        served += 1
        return infer(x)

    def count():
        return served
    return serve, count


def main():
    torch.manual_seed(3)
    model = nn.Sequential(nn.Linear(12, 24), nn.Tanh(), nn.Linear(24, 5)).eval()
    infer, count = make_server(model)
    lat = []
    with torch.no_grad(), open(os.path.join(OUT, "latency.txt"), "w") as f:
        for r in range(5):
            req = torch.randn(8, 12)
            t0 = time.perf_counter()
            out = infer(req)
            dt = time.perf_counter() - t0
            lat.append(dt)
            f.write(f"request {r} top={out.argmax(1).tolist()}\n")
            print(f"request {r} top={out.argmax(1).tolist()} p={out.max().item():.5f}")
    print("served", count(), "latencies_recorded", len(lat), "all_positive", all(d > 0 for d in lat))


if __name__ == "__main__":
    main()
