"""Multi-scale feature extraction (FPN-style neck input) from a timm MobileNetV3 using
features_only=True with feature_cls='hook' (forward hooks collect the stage outputs).
timm's FeatureHooks keep the outputs in a per-device dict that is empty on the first call and
holds the device key afterwards; the compiled forward guarded on it being empty, so the second
call recompiles. feature_cls='getter' or the default FeatureListNet needs no hooks."""
import torch
import timm

torch.manual_seed(0)
backbone = timm.create_model("mobilenetv3_small_050", pretrained=False, features_only=True,
                             feature_cls="hook", out_indices=(1, 2, 3)).eval()
cbackbone = torch.compile(backbone)


def pyramid_stats(feats):
    return [f"{tuple(f.shape[1:])}:{f.float().abs().mean().item():.4f}" for f in feats]


if __name__ == "__main__":
    g = torch.Generator().manual_seed(3)
    print("channels:", backbone.feature_info.channels())
    with torch.no_grad():
        for i in range(3):
            x = torch.randn(2, 3, 64, 64, generator=g)
            feats = cbackbone(x)
            print(f"batch {i}:", " ".join(pyramid_stats(feats)))
