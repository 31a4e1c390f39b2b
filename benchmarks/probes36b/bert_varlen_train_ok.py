# Tiny BERT classifier trained compiled on batches padded to their own longest sequence;
# the sequence dimension is marked dynamic up front so each new length reuses one graph.
import torch
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)
PAD = 0
cfg = BertConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=2,
                 vocab_size=100, max_position_embeddings=64, num_labels=3, pad_token_id=PAD,
                 hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                 problem_type="single_label_classification")
model = BertForSequenceClassification(cfg)
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)


def collate(n, longest):
    ids = torch.randint(1, 100, (n, longest))
    lens = torch.randint(3, longest + 1, (n,))
    lens[0] = longest
    mask = (torch.arange(longest)[None, :] < lens[:, None]).long()
    ids = ids * mask
    return ids, mask, ids[:, 1] % 3


for step, longest in enumerate([9, 14, 11, 20]):
    ids, mask, y = collate(4, longest)
    torch._dynamo.mark_dynamic(ids, 1)
    torch._dynamo.mark_dynamic(mask, 1)
    out = cmodel(input_ids=ids, attention_mask=mask, labels=y)
    out.loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} len {longest} loss {out.loss.item():.4f}")
