"""transformers 5.25.0, BartForSequenceClassification (built from BartConfig, random weights).

A fine-tuning loop (AdamW, a linear warmup/decay LR schedule, gradient clipping) around a
compiled BART classifier. BartForSequenceClassification pools the hidden state of the last
<eos> token, and before it does it checks that every row has the same number of <eos> tokens:
`torch_compilable_check(torch.unique_consecutive(eos_mask.sum(1)).numel() == 1, ...)`, then
`hidden_states[eos_mask, :]`. Both are operators whose output shape depends on the data
(unique_consecutive, then nonzero for the boolean index), so Dynamo breaks the compiled model
inside transformers at every step. pytorch/pytorch#113118 reports unique_consecutive as such a
"dynamic shape operator" under torch.compile (an error with fullgraph=True).
"""
import torch
from transformers import BartConfig, BartForSequenceClassification, get_linear_schedule_with_warmup

torch.manual_seed(0)
config = BartConfig(vocab_size=100, d_model=32, encoder_layers=1, decoder_layers=1,
                    encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                    decoder_ffn_dim=64, max_position_embeddings=64, num_labels=3,
                    pad_token_id=1, bos_token_id=0, eos_token_id=2)
model = BartForSequenceClassification(config).train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=2, num_training_steps=6)
compiled = torch.compile(model)


def batch():
    ids = torch.randint(3, 100, (4, 10))
    ids[:, 0] = config.bos_token_id
    ids[:, -1] = config.eos_token_id
    return ids, torch.randint(0, 3, (4,))


for step in range(3):
    ids, labels = batch()
    out = compiled(input_ids=ids, labels=labels)
    out.loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    opt.zero_grad()
    print(f"step {step} loss {out.loss.item():.4f} lr {sched.get_last_lr()[0]:.2e}")
