"""Gallery embedding service: a timm MambaOut backbone embeds product photos that arrive
in two resolution buckets (160 px thumbnails, then 192 px crops).

The model is compiled once with the default settings. The second bucket makes Dynamo
recompile with dynamic H/W (automatic dynamic shapes), and Inductor then fails to lower
the stride-2 downsampling conv that MambaOut applies to an NHWC->NCHW permuted tensor.
"""
import torch
import torch.nn.functional as F
import timm

torch.manual_seed(0)

# test_mambaout: timm's tiny MambaOut config (same blocks and downsample layers as
# mambaout_femto..base); num_classes=0 gives the pooled embedding.
model = timm.create_model("test_mambaout", num_classes=0).eval()
embed = torch.compile(model, dynamic=False)


def embed_batch(images):
    with torch.no_grad():
        feats = embed(images)
    return F.normalize(feats, dim=-1)


gallery = {}
buckets = [
    ("thumbs", torch.rand(4, 3, 160, 160)),
    ("crops", torch.rand(4, 3, 192, 192)),
]
for name, images in buckets:
    e = embed_batch(images)
    gallery[name] = e
    print(f"{name}: {tuple(images.shape[-2:])} -> embeddings {tuple(e.shape)}")

sims = gallery["thumbs"] @ gallery["crops"].T
print("best match per thumb:", sims.argmax(1).tolist())
