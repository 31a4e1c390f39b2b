"""A Llama language-model training step compiled with mode="reduce-overhead", each batch padded
to a fixed length (so CUDA graphs see one shape), the padding masked out of the loss with
labels = -100. The loop moves input_ids and attention_mask to the GPU but leaves the labels on
the CPU, where the DataLoader made them: eager runs fine, because transformers moves the labels
itself (`shift_labels.to(logits.device)` in ForCausalLMLoss, after padding and slicing them on
the CPU; "enable model parallelism" in LlamaForCausalLM's own loss before transformers 4.46). Compiled, the forward graph has a CPU input (and CPU
work), and Inductor skips CUDA graphs for it: "skipping cudagraphs due to cpu device
(primals_N). Found from: ... loss_utils.py ...", every step, so the mode the
user picked does nothing for the forward. The user line is the compiled model's call, where the
CPU labels go in; the fix is `labels.to(device)` with the other inputs. The class is
huggingface/transformers#31645 ("Skipping cudagraphs for unknown reason", open), the ultralytics
report in ultralytics/ultralytics#21975 (loss targets left on the CPU) and
Comfy-Org/ComfyUI#6866 ("cpu device (arg7_1)").

Why it should reproduce on torch 2.11: `check_multiple_devices_or_any_cpu_nodes`
(cudagraph_utils.py) has skipped on any CPU node since cudagraph trees (2.1); the labels' move
inside the model is in every transformers release of 2024-2026. Llama, not GPT-2: transformers 5
resolves GPT2LMHeadModel's loss type to None and logs a warning_once in every forward, a graph
break of its own. Graph partitioning (which would
split the CPU work off instead of skipping) is pinned off, as earlier sets do. An eager forward
before training installs transformers 5's output-capturing hooks outside the compiled code."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch._inductor.config.graph_partition = False
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
device = "cuda"

config = LlamaConfig(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                     bos_token_id=0, eos_token_id=1, pad_token_id=1)
model = LlamaForCausalLM(config).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)


def batch(step, max_len=32):  # what the DataLoader yields: CPU tensors, padded to max_len
    lengths = [max_len - 3 * ((step + i) % 5) for i in range(4)]
    ids = torch.full((4, max_len), config.pad_token_id, dtype=torch.long)
    mask = torch.zeros(4, max_len, dtype=torch.long)
    for i, n in enumerate(lengths):
        ids[i, :n] = torch.randint(2, config.vocab_size, (n,))
        mask[i, :n] = 1
    labels = ids.masked_fill(mask == 0, -100)
    return ids, mask, labels


ids, mask, labels = batch(0)
with torch.no_grad():  # the untrained model's loss, in eager
    print("initial loss", round(model(ids.to(device), attention_mask=mask.to(device),
                                      labels=labels).loss.item(), 4))
model.train()
compiled = torch.compile(model, mode="reduce-overhead")
for step in range(6):
    ids, mask, labels = batch(step)
    out = compiled(input_ids=ids.to(device), attention_mask=mask.to(device), labels=labels)
    out.loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
print("loss", round(out.loss.item(), 4))
