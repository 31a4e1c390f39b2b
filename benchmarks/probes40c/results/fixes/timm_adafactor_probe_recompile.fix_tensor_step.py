# Linear probe of a timm ResNet-18: frozen backbone, only the classifier head trains, with
# timm's Adafactor (create_optimizer_v2(..., "adafactor", lr=None) = relative step size).
# The user compiles the optimizer step to make it cheap.  timm's Adafactor keeps
# state['step'] as a Python int and does `state['step'] += 1` / math.sqrt(step) in step(), so
# every call sees a new constant: Dynamo guards on `state['step'] == N` and recompiles the
# step function on every training step (torch.optim optimizers keep `step` as a tensor
# for exactly this reason).
import torch
import torch.nn.functional as F
import timm
from timm.optim import create_optimizer_v2

torch.manual_seed(0)
model = timm.create_model("resnet18", pretrained=False, num_classes=10)
model.requires_grad_(False)
head = model.get_classifier()
head.requires_grad_(True)
opt = create_optimizer_v2(head, "adafactor", lr=None, weight_decay=0.0)


@torch.compile
def optimizer_step():
    opt.step()


images = torch.randn(8, 3, 32, 32)
labels = torch.randint(0, 10, (8,))
for step in range(6):
    logits = model(images)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    if step == 0:
        opt.step()  # first step eager, creates the state
        for st in opt.state.values():  # compdiag's fix: wrap the changing number in a tensor
            st["step"] = torch.tensor(float(st["step"]))
    else:
        optimizer_step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} loss {loss.item():.4f}")
print("head weight norm", round(head.weight.norm().item(), 4))
