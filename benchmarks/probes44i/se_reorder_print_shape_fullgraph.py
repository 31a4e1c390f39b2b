"""Sequence encoder served with fullgraph=True.  The author registered `print` as a
reorderable logging function (torch._dynamo.config.reorderable_logging_functions)
so debug prints don't break the graph, but one print passes the batch's shape
(a torch.Size) - only tensors, constants and string formatters can be reordered,
so Dynamo raises Unsupported and the program dies on the first call.
Other side effects: a request counter on self, a per-request CSV, a stderr log."""
import csv, os, sys
import torch
import torch.nn as nn

OUT = os.environ.get("PROBE_OUT", "probe_out")
os.makedirs(OUT, exist_ok=True)
torch._dynamo.config.reorderable_logging_functions.add(print)


class Encoder(nn.Module):
    def __init__(self, vocab=50, d=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.rnn_proj = nn.Linear(d, d)
        self.out = nn.Linear(d, 4)
        self.requests = 0

    def forward(self, tokens):
        self.requests += 1
        h = torch.tanh(self.rnn_proj(self.emb(tokens)))
        print("debug batch", tokens.shape, "mean act", h.mean())
        return self.out(h.mean(1))


def main():
    torch.manual_seed(5)
    enc = Encoder().eval()
    serve = torch.compile(enc, fullgraph=True)
    with open(os.path.join(OUT, "requests.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["req", "label"])
        for r in range(4):
            toks = torch.randint(0, 50, (4, 10))
            print(f"request {r} received", file=sys.stderr)
            with torch.no_grad():
                lab = serve(toks).argmax(1).tolist()
            w.writerow([r, lab])
            print(f"request {r} labels={lab}")
    print("requests", enc.requests)


if __name__ == "__main__":
    main()
