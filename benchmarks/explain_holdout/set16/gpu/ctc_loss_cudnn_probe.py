"""pytorch/pytorch#183396 ("`torch.compile` fails on `nn.CTCLoss` with missing fake impl for
`aten._use_cudnn_ctc_loss.Tensor`", https://github.com/pytorch/pytorch/issues/183396, open,
May 2026): a speech model's training step computes nn.CTCLoss on CUDA with the lengths passed as
tensors, compiled with fullgraph=True. Eager runs; the compiled step fails while Dynamo traces
the loss with fake tensors: on CUDA, ctc_loss's tensor-length overload first asks the CUDA-only
selector aten._use_cudnn_ctc_loss.Tensor whether cuDNN can run it, and that internal op has no
fake (meta) implementation; past it, aten._ctc_loss.Tensor has none either and its output shape
depends on the lengths' values. The user's code only calls nn.CTCLoss. The program ends with the
exception, raised from the loss line (torch's "from user code" names it).

Why it should reproduce on torch 2.11: the issue is open and the one fix proposed, PR #184573
("Fix compile support for CTC loss tensor lengths", May 2026, after 2.11), was closed; the 2.13
wheel registers no Meta kernel or fake impl for aten::_use_cudnn_ctc_loss or
aten::_ctc_loss.Tensor (tagged dynamic_output_shape). A CPU run on torch 2.13 (cuda replaced by
cpu), where the overload skips the cuDNN selector, fails at the same line on the second op:
"Unsupported: Dynamic shape operator ... aten._ctc_loss.Tensor ... from user code: line 34,
in forward"; on CUDA the first op fails first (the issue's error), or, if 2.11's fake tensors
run its real kernel instead, the second one does."""
import torch
import torch.nn as nn

torch.set_float32_matmul_precision("high")
T, N, C, S = 50, 4, 20, 10  # frames, batch, classes (0 = blank), target length


class AcousticModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(40, C)
        self.ctc = nn.CTCLoss(blank=0, zero_infinity=True)

    def forward(self, feats, targets, feat_lens, target_lens):
        log_probs = self.proj(feats).log_softmax(-1)  # (T, N, C)
        return self.ctc(log_probs, targets, feat_lens, target_lens)


torch.manual_seed(0)
model = AcousticModel().cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
step = torch.compile(model, fullgraph=True)
feat_lens = torch.full((N,), T, dtype=torch.long, device="cuda")
target_lens = torch.tensor([10, 8, 6, 9], dtype=torch.long, device="cuda")
for _ in range(3):
    feats = torch.randn(T, N, 40, device="cuda")
    targets = torch.randint(1, C, (N, S), device="cuda")
    loss = step(feats, targets, feat_lens, target_lens)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
print(loss.item())
