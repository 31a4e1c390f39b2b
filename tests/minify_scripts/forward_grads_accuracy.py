"""A wrong gradient whose cause is in the forward (probes45e keyword_svm_hinge_tie_grad, torch
2.13 on the CPU): multi_margin_loss's hinge at exactly zero (a tie) counts in the compiled
forward's saved mask and not in eager's, so the weight's gradient differs while the loss is
equal. The backward graph alone, fed the compiled forward's saved mask, computes the same
gradient as eager from it: only the forward with its gradients compared reproduces."""
import torch
import torch.nn.functional as F

w = torch.zeros(4, 12)
for row in range(4):
    w[row, 3 * row:3 * row + 3] = 1.0
w.requires_grad_(True)
counts = torch.tensor([[2.0, 1.0, 1.0, 2.0, 2.0, 1.0, 2.0, 2.0, 2.0, 1.0, 2.0, 2.0]])
labels = torch.tensor([2])


def loss_of(w, counts, labels):
    return F.multi_margin_loss(F.linear(counts, w), labels, margin=1.0)


loss = torch.compile(loss_of)(w, counts, labels)
loss.backward()
print("loss", float(loss.detach()), "grad", w.grad.sum(dim=1).tolist())
