# Streaming keyword spotter: log-mel frames arrive in chunks of 10 frames, a 2-layer GRU keeps
# its hidden state across chunks, a linear head scores each frame. The model is compiled with
# fullgraph=True because it is deployed as one graph, and the hidden state returned by one call
# is passed back into the next.
import torch
import torch.nn as nn

torch.manual_seed(0)
N_MELS, HIDDEN, KEYWORDS, CHUNK = 40, 64, 4, 10


class StreamingKWS(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(N_MELS)
        self.proj = nn.Linear(N_MELS, HIDDEN)
        self.gru = nn.GRU(HIDDEN, HIDDEN, num_layers=2, batch_first=True)
        self.head = nn.Linear(HIDDEN, KEYWORDS + 1)

    def init_state(self, batch):
        return torch.zeros(self.gru.num_layers, batch, HIDDEN)

    def forward(self, frames, state):
        x = torch.relu(self.proj(self.norm(frames)))
        y, state = self.gru(x, state)
        return self.head(y).softmax(-1), state


model = StreamingKWS().eval()
stream_step = torch.compile(model, fullgraph=True)

with torch.no_grad():
    for utt in range(3):
        feats = torch.randn(1, 60, N_MELS)
        state = model.init_state(1)
        best = torch.zeros(KEYWORDS)
        for start in range(0, feats.size(1), CHUNK):
            probs, state = stream_step(feats[:, start:start + CHUNK], state)
            best = torch.maximum(best, probs[0, :, 1:].max(0).values)
        kw = int(best.argmax())
        print(f"utt {utt}: keyword {kw} score {best[kw].item():.3f}")
