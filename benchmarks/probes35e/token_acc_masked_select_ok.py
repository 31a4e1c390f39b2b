# Eval of a token tagger on padded batches: accuracy and loss only over real tokens,
# selected with a boolean mask. capture_dynamic_output_shape_ops lets the mask selection
# (and the count of distinct predicted tags) stay in one graph.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch._dynamo.config.capture_dynamic_output_shape_ops = True
torch._dynamo.config.capture_scalar_outputs = True
torch.manual_seed(0)

tagger = nn.Sequential(nn.Embedding(50, 16), nn.Linear(16, 6)).eval()


@torch.compile(fullgraph=True)
def eval_step(tokens, tags, pad_mask):
    logits = tagger(tokens)
    sel_logits = logits[pad_mask]
    sel_tags = tags.masked_select(pad_mask)
    loss = F.cross_entropy(sel_logits, sel_tags)
    pred = sel_logits.argmax(-1)
    acc = (pred == sel_tags).float().mean()
    n_tags_used = torch.unique(pred).numel()
    return loss, acc, n_tags_used


with torch.no_grad():
    for b in range(6):
        lengths = torch.randint(3, 13, (4,))
        pad_mask = torch.arange(12)[None, :] < lengths[:, None]
        tokens = torch.randint(1, 50, (4, 12)).masked_fill(~pad_mask, 0)
        tags = torch.randint(0, 6, (4, 12))
        loss, acc, used = eval_step(tokens, tags, pad_mask)
        print(f"batch {b}: tokens {int(pad_mask.sum())} loss {loss.item():.4f} acc {acc.item():.3f} tags {used}")
