import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, D, PAD = 100, 32, 0


class TextClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D, padding_idx=PAD)
        layer = nn.TransformerEncoderLayer(D, 4, 64, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(D, 5)

    def forward(self, ids):
        pad_mask = ids == PAD
        h = self.encoder(self.emb(ids), src_key_padding_mask=pad_mask)
        return self.head(h.mean(1)), h


model = TextClassifier().eval()
compiled = torch.compile(copy.deepcopy(model))

lengths = [12, 7, 3, 10]
ids = torch.zeros(4, 12, dtype=torch.long)
for i, n in enumerate(lengths):
    ids[i, :n] = torch.randint(1, VOCAB, (n,))

with torch.inference_mode():
    logits_e, h_e = model(ids)
    logits_c, h_c = compiled(ids)

print("eager    pred", logits_e.argmax(-1).tolist(), [round(v, 3) for v in logits_e[2].tolist()])
print("compiled pred", logits_c.argmax(-1).tolist(), [round(v, 3) for v in logits_c[2].tolist()])
print(f"max |compiled - eager| logits {(logits_e - logits_c).abs().max().item():.3f}, "
      f"encoder output {(h_e - h_c).abs().max().item():.3f}")
print("eager h at a pad position", [round(v, 3) for v in h_e[2, 5, :3].tolist()])
print("compiled h at a pad pos  ", [round(v, 3) for v in h_c[2, 5, :3].tolist()])
