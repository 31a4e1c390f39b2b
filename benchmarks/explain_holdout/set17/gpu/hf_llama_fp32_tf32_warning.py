"""Scoring padded batches with a float32 Llama (log-likelihood of each sequence, as an
evaluation harness does), the model compiled with mode="reduce-overhead", on an Ampere-or-newer
GPU without `torch.set_float32_matmul_precision("high")`. Inductor compiles every projection
and the LM head as a float32 matmul and warns: "TensorFloat32 tensor cores for float32 matrix
multiplication available but not enabled. Consider setting
`torch.set_float32_matmul_precision('high')` for better performance." The matmuls are all inside
transformers (q/k/v/o, the MLP, lm_head); the user line is the compiled model's call. The
warning's condition is pytorch/pytorch#175484 ("Unable to disable warning about tf32
precision", open: it fires whenever the precision is not "tf32", even when "highest" was set on
purpose) and pytorch/pytorch#88844 (the warning's origin); huggingface/trl#6849 and
vllm-project/vllm#29897 met it in transformers-based code.

Why it should reproduce on torch 2.11: `_warn_tf32_disabled` and `is_tf32_warning_applicable`
(compile_fx.py: a float32 mm/addmm/bmm/baddbmm on CUDA in the graph, capability >= 8.0, the
precision not "tf32") are older than 2.11 (#175484 was filed on 2.10) and unchanged in 2.13; the
H200 is capability 9.0. Shapes are fixed (padded to one length), so no re-recording competes;
`use_cache=False` keeps the KV cache out of the compiled scoring pass; an eager forward before
compiling installs transformers 5's output-capturing hooks outside the compiled code."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
device = "cuda"

config = LlamaConfig(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                     bos_token_id=0, eos_token_id=1, pad_token_id=1)
model = LlamaForCausalLM(config).to(device).eval()


def batch(step, max_len=24):  # right-padded to one length
    lengths = [max_len - 4 * ((step + i) % 3) for i in range(4)]
    ids = torch.full((4, max_len), config.pad_token_id, dtype=torch.long)
    mask = torch.zeros(4, max_len, dtype=torch.long)
    for i, n in enumerate(lengths):
        ids[i, :n] = torch.randint(2, config.vocab_size, (n,))
        mask[i, :n] = 1
    return ids.to(device), mask.to(device)


def sequence_logprob(logits, ids, mask):
    logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    tok = logp.gather(-1, ids[:, 1:, None]).squeeze(-1)
    return (tok * mask[:, 1:]).sum(-1)


ids0, mask0 = batch(0)
with torch.no_grad():  # eager reference scores for the first batch
    eager_scores = sequence_logprob(model(input_ids=ids0, attention_mask=mask0,
                                          use_cache=False).logits, ids0, mask0)
    compiled = torch.compile(model, mode="reduce-overhead")
    for step in range(4):
        ids, mask = (ids0, mask0) if step == 0 else batch(step)
        logits = compiled(input_ids=ids, attention_mask=mask, use_cache=False).logits
        scores = sequence_logprob(logits, ids, mask)
        if step == 0:
            print("max |eager - compiled|", (scores - eager_scores).abs().max().item())
print("scores", [round(v, 3) for v in scores.tolist()])
