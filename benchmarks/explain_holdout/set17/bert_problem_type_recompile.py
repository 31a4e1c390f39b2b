"""transformers 5.25.0, BertForSequenceClassification (built from BertConfig, random weights).

huggingface/transformers PR #14180 ("Generalize problem_type to all sequence classification
models") made every *ForSequenceClassification forward infer the loss from the labels when
`config.problem_type` is None, and write the answer back: `self.config.problem_type =
"single_label_classification"`. Under torch.compile the first training step is traced with
the guard `self.config.problem_type is None`; the forward itself then sets it, so the second
step fails that guard and the whole model recompiles. The fix: set `problem_type` in the
config before compiling.
"""
import torch
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)
config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                    intermediate_size=64, max_position_embeddings=64, num_labels=2)
model = BertForSequenceClassification(config).train()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
compiled = torch.compile(model)

for step in range(3):
    ids = torch.randint(0, 100, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.long)
    mask[1, 5:] = 0  # padding
    out = compiled(input_ids=ids, attention_mask=mask, labels=torch.tensor([0, 1]))
    out.loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {out.loss.item():.4f}")
