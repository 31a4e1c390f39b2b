# Correct program: sentence embeddings from a small BERT (transformers, built from a config,
# random weights): batches padded to a fixed length, masked mean pooling, L2 normalise, cosine
# similarity search against a small index.  The encoder + pooling is compiled once and reused
# for equal-shaped batches under inference.  Nothing here should be reported as a problem.
import torch
import torch.nn.functional as F
from transformers import BertConfig, BertModel

torch.manual_seed(0)
cfg = BertConfig(vocab_size=300, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                 intermediate_size=64, max_position_embeddings=64)
encoder = BertModel(cfg, add_pooling_layer=False).eval()
MAX_LEN = 24


def make_batch(lengths):
    ids = torch.zeros(len(lengths), MAX_LEN, dtype=torch.long)
    mask = torch.zeros(len(lengths), MAX_LEN, dtype=torch.long)
    for i, n in enumerate(lengths):
        ids[i, :n] = torch.randint(5, 300, (n,))
        mask[i, :n] = 1
    return ids, mask


@torch.compile
def embed(input_ids, attention_mask):
    hidden = encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    m = attention_mask.unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1.0)
    return F.normalize(pooled, dim=-1)


with torch.no_grad():
    index = torch.cat([embed(*make_batch([10, 24, 7, 15])), embed(*make_batch([3, 20, 24, 9]))])
    queries = embed(*make_batch([12, 5, 24, 18]))
    scores = queries @ index.T
    best = scores.argmax(-1)
print("index", tuple(index.shape), "best match", best.tolist())
print("top scores", [round(v, 4) for v in scores.max(-1).values.tolist()])
