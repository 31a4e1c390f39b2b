# Correct program: fine-tune timm's tiny test_resnet on CPU with bf16 autocast, stem frozen,
# a compiled train step (forward + loss) and an eager bf16 eval under no_grad after each epoch.
# Fixed batch and image size; model.train()/model.eval() switch once per epoch outside the
# compiled function.  Nothing here should be reported as a problem.
import torch
import torch.nn.functional as F
import timm

torch.manual_seed(0)
model = timm.create_model("test_resnet", pretrained=False, num_classes=4)
for p in model.conv1.parameters():  # freeze the stem
    p.requires_grad_(False)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)


@torch.compile
def train_loss(images, labels):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(images)
    return F.cross_entropy(logits.float(), labels)


def eval_logits(images):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return model(images).float()


train_x = torch.randn(4, 8, 3, 32, 32)
train_y = torch.randint(0, 4, (4, 8))
val_x, val_y = torch.randn(8, 3, 32, 32), torch.randint(0, 4, (8,))
for epoch in range(2):
    model.train()
    for images, labels in zip(train_x, train_y):
        loss = train_loss(images, labels)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    model.eval()
    with torch.no_grad():
        acc = (eval_logits(val_x).argmax(-1) == val_y).float().mean().item()
    print(f"epoch {epoch} last loss {loss.item():.3f} val acc {acc:.3f}")
