"""pytorch/pytorch#128306 ("Discrepancy between eager and inductor of CPU AMP when running gt",
https://github.com/pytorch/pytorch/issues/128306): comparing a bfloat16 tensor with a Python float
threshold; eager compares in bfloat16 and keeps 0.2002 out, Inductor keeps it in (three indices
instead of two)."""
import torch


def test(pred_scores, score_thresh):
    keep_idxs = pred_scores > score_thresh
    topk_idxs = torch.nonzero(keep_idxs)
    return topk_idxs


x = torch.tensor([[0.1, 0.2002, 0.3, 0.4]]).to(torch.bfloat16)
score_thresh = 0.2
eager_res = test(x, score_thresh)
res = torch.compile(test)(x, score_thresh)
print("bf16 eager_res is: {}".format(eager_res))
print("bf16 inductor res is: {}".format(res))
