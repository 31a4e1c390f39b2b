"""Embed queries with a small BERT; the wrapper drops all-padding columns before the encoder to save work."""
import torch
import torch.nn as nn
from transformers import BertConfig, BertModel

torch.manual_seed(0)


class QueryEmbedder(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = BertConfig(vocab_size=800, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                         intermediate_size=128, max_position_embeddings=64)
        self.bert = BertModel(cfg, add_pooling_layer=False)

    def forward(self, input_ids, attention_mask):
        longest = int(attention_mask.sum(dim=1).max())
        input_ids, attention_mask = input_ids[:, :longest], attention_mask[:, :longest]
        hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        summed = (hidden * attention_mask.unsqueeze(-1)).sum(1)
        return summed / attention_mask.sum(1, keepdim=True)


embedder = torch.compile(QueryEmbedder().eval())

g = torch.Generator().manual_seed(3)
with torch.no_grad():
    for batch in range(5):
        lengths = torch.randint(3, 20, (6,), generator=g)
        ids = torch.zeros(6, 32, dtype=torch.long)
        mask = torch.zeros(6, 32, dtype=torch.long)
        for i, L in enumerate(lengths.tolist()):
            ids[i, :L] = torch.randint(1, 800, (L,), generator=g)
            mask[i, :L] = 1
        vecs = embedder(ids, mask)
        print(f"batch {batch}: {tuple(vecs.shape)}, mean norm {vecs.norm(dim=-1).mean():.3f}")
