"""Streaming evaluation of a long signal in chunks. `score_stream` builds a generator that
yields each chunk's scores and *returns* the running anomaly total when it is exhausted
(the standard `return` value of a Python generator, read by `yield from` or from
StopIteration.value). The author compiles score_stream to speed up the per-chunk model
calls; the chunk scores are the same, but the returned total silently becomes None.

Source: pytorch/pytorch#198190 ("[dynamo] A generator that leaves a compiled region
(returned, or alive across a graph break) comes back as an exhausted `tuple_iterator`:
`StopIteration.value` is silently `None`", 2026-09, open)."""
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Conv1d(1, 8, 5, padding=2), nn.ReLU(), nn.Conv1d(8, 1, 5, padding=2)).eval()


def score_stream(signal, chunk=256):
    def chunks():
        total = torch.zeros(())
        for piece in signal.split(chunk, dim=-1):
            err = (model(piece) - piece).abs().mean(dim=(0, 1))
            total = total + (err > 0.6).sum()
            yield err
        return total
    return chunks()


def evaluate(stream):
    n_chunks = 0
    try:
        while True:
            next(stream)
            n_chunks += 1
    except StopIteration as stop:
        anomalies = stop.value
    return n_chunks, anomalies


signal = torch.randn(1, 1, 1024)
compiled_score_stream = torch.compile(score_stream)
with torch.no_grad():
    n_chunks, anomalies = evaluate(compiled_score_stream(signal))
print("chunks scored:", n_chunks)
print("anomalous samples:", anomalies)
