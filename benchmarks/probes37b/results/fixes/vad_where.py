# Speaker-embedding preprocessing: keep only the voiced frames of an utterance (energy gate),
# falling back to all frames when too few are voiced. The user turned on
# capture_dynamic_output_shape_ops so the boolean-mask selection stays in the graph, and
# compiles with fullgraph=True to be sure nothing breaks.
import torch

torch._dynamo.config.capture_dynamic_output_shape_ops = True
torch.manual_seed(0)

ENERGY_THR = 1.0
MIN_VOICED = 4


def utterance_embedding(frames, proj):
    energy = frames.pow(2).mean(1)
    keep = energy > ENERGY_THR
    keep = keep | (keep.sum() < MIN_VOICED)  # too little speech: use every frame
    w = keep.to(frames.dtype).unsqueeze(1)
    return (torch.tanh(frames @ proj) * w).sum(0) / w.sum()


proj = torch.randn(16, 8) * 0.3
utts = [torch.randn(40, 16) * s for s in (1.2, 0.6, 1.5)]

for i, u in enumerate(utts):
    e = utterance_embedding(u, proj)
    print(f"eager utt {i}: frames {u.shape[0]} emb sum {e.sum().item():.4f}")

embed = torch.compile(utterance_embedding, fullgraph=True)
for i, u in enumerate(utts):
    e = embed(u, proj)
    print(f"compiled utt {i}: emb sum {e.sum().item():.4f}")
