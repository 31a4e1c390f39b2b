"""NVIDIA/TransformerEngine PR #3130 ("[torch.compile] Bunch of small changes needed for
enabling torch.compile", 2026: "Compiled graphs may have baked is_fp8_ubuf() via
assume_constant_result; reset so re-init with different settings doesn't read stale
constants", so its teardown calls torch.compiler.reset()): a setting read through a
`torch.compiler.assume_constant_result` helper is baked into the graph with no guard, so
after a training run switches the setting between phases the compiled step keeps the first
phase's value until the compiled code is reset."""
import torch

SETTINGS = {"loss_scale": True}


@torch.compiler.assume_constant_result
def loss_scaling_enabled():
    return SETTINGS["loss_scale"]


@torch.compile
def scaled_loss(pred, target):
    loss = torch.nn.functional.mse_loss(pred, target)
    if loss_scaling_enabled():
        loss = loss * 1024.0
    return loss


pred, target = torch.randn(8, 4), torch.randn(8, 4)
print("phase 1 (scaled):", scaled_loss(pred, target).item())
SETTINGS["loss_scale"] = False  # phase 2: loss scaling off
loss = scaled_loss(pred, target)
print("phase 2 (unscaled):", loss.item())
torch.testing.assert_close(loss, torch.nn.functional.mse_loss(pred, target))
