"""Batch inference with a float32 timm ConvNeXt-Tiny compiled with
mode="max-autotune-no-cudagraphs" on an Ampere-or-newer GPU. The convolutions run on cuDNN with
TF32 (torch.backends.cudnn.allow_tf32 defaults to True), but ConvNeXt's MLPs are nn.Linear layers
applied to channels-last activations (timm's ConvNeXtBlock with conv_mlp=False, the default of
convnext_tiny), so every block has two float32 matrix multiplications, and
torch.backends.cuda.matmul's precision defaults to "ieee". Inductor warns: "TensorFloat32 tensor
cores for float32 matrix multiplication available but not enabled. Consider setting
`torch.set_float32_matmul_precision('high')` for better performance." pytorch/pytorch PR #79537
(the numerical-accuracy note: TF32 for convolutions and matmuls, the two switches and their
defaults) and pytorch/torchdynamo#1839, whose fix (pytorch/pytorch PR #88844) added the
warning; kijai/ComfyUI-KJNodes#362 meets it in a compiled model. The matmuls are all inside
timm; the user's line is the compiled model's call. The program exits 0.

Why it should reproduce on torch 2.11: compile_fx._warn_tf32_disabled and
is_tf32_warning_applicable (a float32 mm/addmm/bmm/baddbmm on CUDA in the graph, capability
>= 8.0, torch.backends.cuda.matmul.fp32_precision not "tf32") are older than 2.10 and unchanged
in the 2.13 wheel; the H200 is capability 9.0. timm.create_model(name, pretrained=False,
num_classes=...) and ConvNeXt's Linear MLP are in every timm release since 0.5. Shapes are
fixed, there is no graph break, and max-autotune's templates fuse the MLPs' epilogues."""
import timm
import torch

torch.manual_seed(0)
model = timm.create_model("convnext_tiny", pretrained=False, num_classes=10).cuda().eval()
compiled = torch.compile(model, mode="max-autotune-no-cudagraphs")

g = torch.Generator().manual_seed(0)
with torch.no_grad():
    for step in range(4):
        images = torch.randn(8, 3, 64, 64, generator=g).cuda()
        logits = compiled(images)
        print(step, logits.float().softmax(-1).max(-1).values.mean().item())
