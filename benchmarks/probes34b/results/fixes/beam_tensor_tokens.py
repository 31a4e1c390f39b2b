import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, HID, BEAM, BOS, EOS = 40, 64, 3, 1, 2


class GRUDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, HID)
        self.cell = nn.GRUCell(HID, HID)
        self.out = nn.Linear(HID, VOCAB)


decoder = GRUDecoder().eval()


@torch.compile
def extend(last, hidden):
    hidden = decoder.cell(decoder.emb(last), hidden)
    return F.log_softmax(decoder.out(hidden), dim=-1), hidden


def beam_search(context, max_len=14):
    hyps = [[BOS]]
    scores = torch.zeros(1)
    hidden = context.unsqueeze(0)
    for _ in range(max_len):
        logp, hidden = extend(torch.tensor([seq[-1] for seq in hyps]), hidden)
        total = (scores[:, None] + logp).flatten()
        top, idx = total.topk(BEAM)
        parents = (idx // VOCAB).tolist()
        tokens = (idx % VOCAB).tolist()
        hyps = [hyps[p] + [t] for p, t in zip(parents, tokens)]
        hidden = hidden[parents]
        scores = top
    return hyps[0], scores[0].item()


with torch.no_grad():
    for n in range(3):
        best, score = beam_search(torch.randn(HID))
        print(f"utterance {n}: len {len(best)} score {score:.3f} tokens {best[:8]}")
