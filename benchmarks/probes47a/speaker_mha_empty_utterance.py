# Speaker-ID scoring of a batch of variable-length utterances: frame projection, one
# self-attention layer (nn.MultiheadAttention, batch_first, key_padding_mask from the lengths),
# masked mean pooling, cosine scores against enrolled speakers. The batch comes from a VAD that
# can trim an utterance to nothing (length 0). The compiled scorer is checked against eager
# before it replaces it.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_MELS, D, SPEAKERS = 40, 64, 5


class SpeakerEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(N_MELS, D)
        self.attn = nn.MultiheadAttention(D, 4, batch_first=True)
        self.norm = nn.LayerNorm(D)

    def forward(self, feats, lengths):
        T = feats.size(1)
        pad = torch.arange(T)[None, :] >= lengths[:, None]
        x = self.proj(feats)
        a, _ = self.attn(x, x, x, key_padding_mask=pad, need_weights=False)
        x = self.norm(x + a)
        keep = (~pad).unsqueeze(-1).to(x.dtype)
        emb = (x * keep).sum(1) / lengths.clamp(min=1).unsqueeze(-1)
        return F.normalize(emb, dim=-1)


encoder = SpeakerEncoder().eval()
enrolled = F.normalize(torch.randn(SPEAKERS, D), dim=-1)
compiled_encoder = torch.compile(encoder)

feats = torch.randn(6, 80, N_MELS)
lengths = torch.tensor([80, 64, 0, 71, 30, 80])  # utterance 2: VAD found no speech

with torch.no_grad():
    eager_scores = encoder(feats, lengths) @ enrolled.T
    compiled_scores = compiled_encoder(feats, lengths) @ enrolled.T

for i in range(len(lengths)):
    e, c = eager_scores[i], compiled_scores[i]
    print(f"utt {i} len {int(lengths[i]):2d}: eager best {int(e.argmax())} ({e.max().item():.3f})"
          f"  compiled best {int(c.argmax())} ({c.max().item():.3f})")
same = torch.allclose(eager_scores, compiled_scores, atol=1e-4)
print("compiled scorer matches eager:", same)
