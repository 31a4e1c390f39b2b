import torch, timm, copy
torch.manual_seed(0)
model = timm.create_model("test_resnet", pretrained=False, num_classes=4).train()
x = torch.randn(8, 3, 32, 32)
def rm_after(m, x, autocast):
    m = copy.deepcopy(m)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        m(x)
    return m.layer4[0].downsample[2].running_mean.double()
ref = rm_after(copy.deepcopy(model).double(), x.double(), False)
for ac in (False, True):
    r = rm_after(model, x, ac)
    print("autocast" if ac else "fp32", "relative RMSE vs float64:", ((r - ref).norm() / ref.norm()).item())
