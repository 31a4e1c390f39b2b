# Seq2seq translation (PyTorch "NLP from scratch: seq2seq" tutorial): GRU encoder, GRU decoder
# with Bahdanau attention and teacher forcing; the decoder is compiled.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch._dynamo.config.allow_rnn = True
SOS, MAX_LENGTH, VOCAB, H = 0, 6, 20, 32


class EncoderRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, H)
        self.gru = nn.GRU(H, H, batch_first=True)

    def forward(self, x):
        return self.gru(self.embedding(x))


class BahdanauAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.Wa, self.Ua, self.Va = nn.Linear(H, H), nn.Linear(H, H), nn.Linear(H, 1)

    def forward(self, query, keys):
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys))).squeeze(2).unsqueeze(1)
        weights = F.softmax(scores, dim=-1)
        return torch.bmm(weights, keys), weights


class AttnDecoderRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, H)
        self.attention = BahdanauAttention()
        self.gru = nn.GRU(2 * H, H, batch_first=True)
        self.out = nn.Linear(H, VOCAB)

    def forward(self, encoder_outputs, encoder_hidden, target_tensor):
        b = encoder_outputs.size(0)
        decoder_input = torch.full((b, 1), SOS, dtype=torch.long)
        hidden, outputs = encoder_hidden, []
        for i in range(MAX_LENGTH):
            embedded = self.embedding(decoder_input)
            context, _ = self.attention(hidden.permute(1, 0, 2), encoder_outputs)
            output, hidden = self.gru(torch.cat((embedded, context), dim=2), hidden)
            outputs.append(self.out(output))
            decoder_input = target_tensor[:, i].unsqueeze(1)  # teacher forcing
        return F.log_softmax(torch.cat(outputs, dim=1), dim=-1)


encoder, decoder = EncoderRNN(), torch.compile(AttnDecoderRNN())
params = list(encoder.parameters()) + list(decoder.parameters())
opt = torch.optim.Adam(params, lr=0.01)
src = torch.randint(1, VOCAB, (8, MAX_LENGTH))
tgt = src.flip(1)
for epoch in range(5):
    enc_out, enc_hidden = encoder(src)
    log_probs = decoder(enc_out, enc_hidden, tgt)
    loss = F.nll_loss(log_probs.view(-1, VOCAB), tgt.view(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
