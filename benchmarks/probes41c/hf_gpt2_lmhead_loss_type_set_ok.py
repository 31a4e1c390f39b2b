"""Correct cousin of hf_gpt2_lmhead_loss_type_break.py: same tiny GPT-2 fine-tune with labels=,
but model.loss_type is set to "ForCausalLM" before compiling, so the loss_function property
finds the loss in LOSS_MAPPING and never calls logger.warning_once inside the compiled forward (the fix from huggingface/transformers#34615).
"""
import torch
from transformers import GPT2Config, GPT2LMHeadModel
from transformers.utils import logging as hf_logging

hf_logging.set_verbosity_error()
torch.manual_seed(0)

VOCAB, SEQ, BATCH, STEPS = 128, 24, 4, 6


def make_batch(step):
    g = torch.Generator().manual_seed(step)
    ids = torch.randint(1, VOCAB, (BATCH, SEQ), generator=g)
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids.clone()}


def main():
    config = GPT2Config(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=2, n_positions=64,
                        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    model = GPT2LMHeadModel(config)
    model.train()
    # name the loss explicitly so the loss_function property needs no fallback warning
    model.loss_type = "ForCausalLM"
    cmodel = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)

    losses = []
    for step in range(STEPS):
        batch = make_batch(step)
        out = cmodel(**batch)
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(out.loss.item())
        print(f"step {step} loss {losses[-1]:.4f}")
    print(f"first/last loss {losses[0]:.4f} -> {losses[-1]:.4f}")


if __name__ == "__main__":
    main()
