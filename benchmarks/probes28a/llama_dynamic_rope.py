"""Score long documents with a small Llama whose context is stretched with dynamic RoPE scaling."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(
    vocab_size=500, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
    rope_scaling={"rope_type": "dynamic", "factor": 2.0},
)
model = LlamaForCausalLM(config).eval()
model = torch.compile(model)

g = torch.Generator().manual_seed(0)
with torch.no_grad():
    for doc_len in (48, 48, 96, 96):
        ids = torch.randint(0, 500, (2, doc_len), generator=g)
        out = model(input_ids=ids, labels=ids)
        print(f"doc length {doc_len}: perplexity {out.loss.exp():.2f}")
