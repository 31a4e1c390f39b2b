# Prompt tuning: a learnable soft prompt is prepended to the token embeddings of a frozen
# Llama classifier, and the compiled model is called with inputs_embeds.
import torch
from transformers import LlamaConfig, LlamaForSequenceClassification

torch.manual_seed(0)
cfg = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128,
                  num_attention_heads=4, num_key_value_heads=2, vocab_size=100,
                  max_position_embeddings=64, num_labels=3, pad_token_id=0,
                  problem_type="single_label_classification")
model = LlamaForSequenceClassification(cfg)
for p in model.parameters():
    p.requires_grad_(False)
soft_prompt = torch.nn.Parameter(torch.randn(4, 64) * 0.02)
opt = torch.optim.Adam([soft_prompt], lr=1e-2)
cmodel = torch.compile(model)
embed = model.get_input_embeddings()


def train_step(ids, labels):
    tok = embed(ids)
    prompt = soft_prompt.unsqueeze(0).expand(ids.shape[0], -1, -1)
    inputs = torch.cat([prompt, tok], dim=1)
    out = cmodel(inputs_embeds=inputs, labels=labels)
    out.loss.backward()
    opt.step()
    opt.zero_grad()
    return out.loss.detach()


for step in range(4):
    ids = torch.randint(1, 100, (8, 12))
    labels = torch.randint(0, 3, (8,))
    loss = train_step(ids, labels)
    print(f"step {step} loss {loss.item():.4f}")
print("prompt norm", round(soft_prompt.norm().item(), 4))
