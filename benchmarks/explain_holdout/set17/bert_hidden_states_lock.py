"""transformers 5.25.0, BertModel (built from BertConfig, random weights).

Asking a compiled transformers model for `output_hidden_states=True` makes transformers
install its output-capturing forward hooks lazily, inside the compiled call
(transformers/utils/output_capturing.py, `maybe_install_capturing_hooks`), under a
`threading.Lock` (`with _hook_installation_lock:`). Dynamo cannot enter a `lock` context
manager: the forward graph-breaks there, and registering the hooks breaks again
(`setattr()` on RemovableHandle). huggingface/transformers PR #44638 ("Fix output capturing
for Backbones") describes it: "Due to the `lock`, hook installation creates a graph break".
The same call without `output_hidden_states` compiles into one graph.
"""
import torch
from transformers import BertConfig, BertModel

torch.manual_seed(0)
config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                    intermediate_size=64, max_position_embeddings=64)
model = BertModel(config).eval()
compiled = torch.compile(model)

with torch.no_grad():
    for step in range(3):
        ids = torch.randint(0, 100, (2, 8))
        out = compiled(input_ids=ids, output_hidden_states=True)
        print(f"step {step}: {len(out.hidden_states)} hidden states, "
              f"last mean {out.last_hidden_state.mean().item():.4f}")
