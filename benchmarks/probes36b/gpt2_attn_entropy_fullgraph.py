# Attention analysis: a compiled (fullgraph) GPT-2 forward that returns the per-layer
# attention maps so their entropy can be logged; eager attention so weights are returned.
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
cfg = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=100, n_positions=64,
                 bos_token_id=0, eos_token_id=99)
model = GPT2LMHeadModel(cfg).eval()
model.set_attn_implementation("eager")


@torch.compile(fullgraph=True)
def analyze(ids, mask):
    out = model(input_ids=ids, attention_mask=mask, output_attentions=True, use_cache=False)
    ent = [-(a.clamp_min(1e-9).log() * a).sum(-1).mean() for a in out.attentions]
    return out.logits, torch.stack(ent)


ids = torch.randint(1, 99, (2, 10))
mask = torch.ones_like(ids)
with torch.no_grad():
    logits, ent = analyze(ids, mask)
print("logits sum", round(logits.sum().item(), 3))
print("entropy per layer", [round(x, 4) for x in ent.tolist()])
