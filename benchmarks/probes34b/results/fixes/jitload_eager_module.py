import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(0)
path = os.path.join(tempfile.gettempdir(), "legacy_tagger_p34b.pt")


class LegacyTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(60, 32)
        self.gru = nn.GRU(32, 32, batch_first=True)
        self.tag = nn.Linear(32, 9)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out, _ = self.gru(self.emb(tokens))
        return self.tag(out).argmax(-1)


if not os.path.exists(path):
    torch.jit.script(LegacyTagger().eval()).save(path)

tagger = torch.jit.load(path)
eager_tagger = LegacyTagger().eval()
eager_tagger.load_state_dict(tagger.state_dict())
fast_tagger = torch.compile(eager_tagger)

with torch.no_grad():
    for batch in range(3):
        tokens = torch.randint(0, 60, (4, 12))
        tags = fast_tagger(tokens)
        print(f"batch {batch}: first sentence tags {tags[0].tolist()}")
