"""Attention-map distillation (TinyBERT / MiniLM style) from a GPT-2 teacher.

The student matches the teacher's next-token distribution and its attention
maps, which both models return with `output_attentions=True`. The whole
training step is compiled with fullgraph=True so any graph break is an error.
"""
import torch
import torch.nn.functional as F
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)

VOCAB, SEQ, BATCH, T = 512, 32, 4, 2.0
common = dict(vocab_size=VOCAB, n_embd=64, n_head=2, n_positions=64,
              attn_implementation="eager", bos_token_id=1, eos_token_id=2)
teacher = GPT2LMHeadModel(GPT2Config(n_layer=4, **common)).eval()
student = GPT2LMHeadModel(GPT2Config(n_layer=2, **common)).train()
for p in teacher.parameters():
    p.requires_grad_(False)
opt = torch.optim.AdamW(student.parameters(), lr=5e-4)


@torch.compile(fullgraph=True)
def distill_loss(ids):
    with torch.no_grad():
        t_out = teacher(input_ids=ids, output_attentions=True)
    s_out = student(input_ids=ids, output_attentions=True)
    lm = F.cross_entropy(s_out.logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
    kd = F.kl_div(F.log_softmax(s_out.logits / T, -1), F.softmax(t_out.logits / T, -1),
                  reduction="batchmean") * T * T
    # student layer i mimics teacher layer 2i+1
    att = sum(F.mse_loss(s_att, t_out.attentions[2 * i + 1])
              for i, s_att in enumerate(s_out.attentions))
    return lm + kd + 10.0 * att, att


def make_batch():
    start = torch.randint(3, VOCAB - SEQ, (BATCH, 1))
    return (start + torch.arange(SEQ)) % VOCAB  # ascending runs: easy to learn


for step in range(20):
    loss, att = distill_loss(make_batch())
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    if step % 5 == 4:
        print(f"step {step + 1:3d}  loss {loss.item():.4f}  attn-mse {att.item():.5f}")
