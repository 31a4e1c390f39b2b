"""Score review snippets with a small BERT classifier; batches are padded to their longest review."""
import torch
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)
config = BertConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=1, num_attention_heads=4,
                    intermediate_size=128, num_labels=2)
model = BertForSequenceClassification(config).eval()
scorer = torch.compile(model, dynamic=False)


def collate(reviews):
    longest = max(len(r) for r in reviews)
    ids = torch.zeros(len(reviews), longest, dtype=torch.long)
    mask = torch.zeros(len(reviews), longest, dtype=torch.long)
    for i, r in enumerate(reviews):
        ids[i, :len(r)] = torch.tensor(r)
        mask[i, :len(r)] = 1
    return ids, mask


g = torch.Generator().manual_seed(1)
stream = [[torch.randint(1, 1000, (int(n),), generator=g).tolist() for n in torch.randint(4, 40, (4,), generator=g)]
          for _ in range(6)]

positive = 0
with torch.no_grad():
    for step, reviews in enumerate(stream):
        ids, mask = collate(reviews)
        logits = scorer(input_ids=ids, attention_mask=mask).logits
        positive += int((logits.argmax(-1) == 1).sum())
        print(f"batch {step}: padded length {ids.shape[1]}, positive so far {positive}")
