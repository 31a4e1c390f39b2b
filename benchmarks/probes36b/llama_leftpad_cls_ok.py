# Batch inference with a Llama sequence classifier: left-padded prompts of different
# lengths, the head reads each row's last non-pad token; compiled once, several fixed-shape batches.
import torch
from transformers import LlamaConfig, LlamaForSequenceClassification

torch.manual_seed(0)
PAD = 0
cfg = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128,
                  num_attention_heads=4, num_key_value_heads=2, vocab_size=100,
                  max_position_embeddings=64, num_labels=4, pad_token_id=PAD)
model = LlamaForSequenceClassification(cfg).eval()
cmodel = torch.compile(model)


def left_pad(seqs, width):
    ids = torch.full((len(seqs), width), PAD)
    mask = torch.zeros(len(seqs), width, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, width - len(s):] = torch.tensor(s)
        mask[i, width - len(s):] = 1
    return ids, mask


with torch.no_grad():
    for b in range(3):
        lens = torch.randint(3, 13, (6,)).tolist()
        seqs = [torch.randint(1, 100, (n,)).tolist() for n in lens]
        ids, mask = left_pad(seqs, 12)
        logits = cmodel(input_ids=ids, attention_mask=mask).logits
        print(f"batch {b} lens {lens} pred {logits.argmax(-1).tolist()}",
              f"logit0 {logits[0].round(decimals=3).tolist()}")
