"""Fine-tune a tiny GPT-2 (GPT2LMHeadModel, random weights) with a compiled model, passing
labels= so the model computes its own loss, the way the HF causal-LM examples do.

Follows huggingface/transformers#34615 ("Torch.compile Graph break introduced due to new loss
function api"; PR #34616): GPT2LMHeadModel's class name does not match a LOSS_MAPPING key, so
the loss_function property calls logger.warning_once inside every compiled forward.
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
    import transformers.modeling_utils as _mu
    torch._dynamo.config.ignore_logging_functions.add(_mu.logger.warning_once)
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
