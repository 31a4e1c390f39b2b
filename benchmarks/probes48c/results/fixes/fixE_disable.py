"""Streaming speech enhancer: a GRU cell runs one frame at a time and writes its new
hidden state back into a persistent state buffer, skipping the copy when the new
state already is that buffer.

After pytorch/pytorch#165408: Dynamo cannot compare two `data_ptr()` results it
cannot prove equal, so the comparison breaks the graph.
"""
import torch
import torch.nn as nn


@torch.compiler.disable
def _write_back(new_state, state):
    if new_state.data_ptr() != state.data_ptr():
        state.copy_(new_state)


class StreamingEnhancer(nn.Module):
    def __init__(self, n_bins=33, hidden=48):
        super().__init__()
        self.cell = nn.GRUCell(n_bins, hidden)
        self.mask = nn.Linear(hidden, n_bins)

    def step(self, frame, state):
        new_state = self.cell(frame, state)
        _write_back(new_state, state)
        gain = torch.sigmoid(self.mask(state))
        return frame * gain


def main():
    torch.manual_seed(0)
    model = StreamingEnhancer().eval()
    step = torch.compile(model.step)
    state = torch.zeros(1, 48)
    frames = torch.rand(20, 1, 33)
    with torch.no_grad():
        energy = 0.0
        for t in range(frames.shape[0]):
            out = step(frames[t], state)
            energy += out.pow(2).sum().item()
    print(f"enhanced energy {energy:.4f}, state norm {state.norm().item():.4f}")


if __name__ == "__main__":
    main()
