"""Batched seq2seq inference: compile a tiny T5's forward and call generate() on prompts of
different lengths.

Uses the pattern older HF docs / blog posts suggested (model.forward = torch.compile(model.forward))
with the default dynamic cache. Every generate() call walks the compiled forward through
several states of the EncoderDecoderCache (empty cross-attention cache, is_updated flags flipping,
growing self-attention keys, new encoder length), each failing a guard of the previous graph.
Follows huggingface/transformers#33221 ("What's going on with T5 x torch.compile?") and
#33283 (T5 generate() with torch.compile), whose answer is a static cache (PR #30845).
"""
import torch
from transformers import T5Config, T5ForConditionalGeneration
from transformers.utils import logging as hf_logging

hf_logging.set_verbosity_error()
torch.manual_seed(0)

PROMPTS = [(6, 5), (9, 7), (12, 4), (7, 9)]  # (prompt length, new tokens)


def main():
    config = T5Config(vocab_size=128, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2,
                      decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    model = T5ForConditionalGeneration(config).eval()
    model.forward = torch.compile(model.forward)

    g = torch.Generator().manual_seed(1)
    for i, (length, new) in enumerate(PROMPTS):
        src = torch.randint(2, 128, (2, length), generator=g)
        out = model.generate(src, max_new_tokens=new, min_new_tokens=new, do_sample=False)
        print(f"prompt {i} len {length} -> output {tuple(out.shape)} first {out[0, 1:4].tolist()}")


if __name__ == "__main__":
    main()
