import torch
import torch.nn as nn

torch.manual_seed(0)
ALPHABET = "_abcdefghijklmnopqrstuvwxyz '"
FEAT = 40


class SpeechEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(FEAT, 96, 5, stride=2, padding=2)
        self.gru = nn.GRUCell(96, 96)
        self.head = nn.Linear(96, len(ALPHABET))

    def forward(self, feats):
        x = torch.relu(self.conv(feats.transpose(1, 2))).transpose(1, 2)
        h, outs = x.new_zeros(x.size(0), 96), []
        for t in range(x.size(1)):
            h = self.gru(x[:, t], h)
            outs.append(self.head(h))
        return torch.stack(outs, 1)


model = SpeechEncoder().eval()


@torch.compile
def greedy_transcribe(feats):
    best = model(feats).argmax(-1)
    texts = []
    for path in best:
        collapsed = torch.unique_consecutive(path)
        texts.append(collapsed[collapsed != 0])
    return texts


with torch.no_grad():
    for utt in range(3):
        feats = torch.randn(2, 24, FEAT)
        for ids in greedy_transcribe(feats):
            print(f"utt {utt}: '{''.join(ALPHABET[i] for i in ids.tolist())}'")
