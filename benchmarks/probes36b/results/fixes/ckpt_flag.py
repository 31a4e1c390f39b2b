# Memory-saving fine-tune: gradient checkpointing on a Llama model (reentrant, as many
# tutorials set it), and the forward+loss compiled with fullgraph=True to make sure it is one graph.
import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
torch._dynamo.config.skip_fwd_side_effects_in_bwd_under_checkpoint = True
cfg = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128,
                  num_attention_heads=4, num_key_value_heads=2, vocab_size=100,
                  max_position_embeddings=64, use_cache=False)
model = LlamaForCausalLM(cfg)
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
model.train()
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile(fullgraph=True)
def compute_loss(ids, mask):
    out = model(input_ids=ids, attention_mask=mask, labels=ids, use_cache=False)
    return out.loss


for step in range(3):
    ids = torch.randint(1, 100, (4, 16))
    mask = torch.ones_like(ids)
    loss = compute_loss(ids, mask)
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f}")
