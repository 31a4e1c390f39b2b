"""Image-retrieval embedding extraction with a compiled timm model.

The user compiles the classifier once and reuses the compiled object for the gallery
embeddings by calling its forward_features / forward_head(pre_logits=True) methods, as timm's
README shows for feature extraction. OptimizedModule only compiles __call__/forward; other
attributes are forwarded to the original module, so the whole embedding loop runs eagerly.
Follows pytorch/pytorch#141616 ("Clarify that compile(module) only affects the forward
method": calling another method of the compiled module silently compiles nothing).
"""
import torch
import timm

torch.manual_seed(0)

N_GALLERY, BATCH = 6, 8


def main():
    model = timm.create_model("vit_tiny_patch16_224", img_size=32, patch_size=8, depth=4,
                              num_classes=10).eval()
    cmodel = torch.compile(model)

    g = torch.Generator().manual_seed(1)
    with torch.inference_mode():
        # sanity check that the compiled classifier works
        probe = torch.randn(BATCH, 3, 32, 32, generator=g)
        print("probe top-1:", cmodel(probe).argmax(-1).tolist())

        # gallery embeddings for kNN retrieval
        gallery = []
        for i in range(N_GALLERY):
            imgs = torch.randn(BATCH, 3, 32, 32, generator=g)
            feats = cmodel.forward_features(imgs)
            emb = cmodel.forward_head(feats, pre_logits=True)
            gallery.append(torch.nn.functional.normalize(emb, dim=-1))
        gallery = torch.cat(gallery)

        query = torch.nn.functional.normalize(
            cmodel.forward_head(cmodel.forward_features(probe), pre_logits=True), dim=-1)
        sims = query @ gallery.T
        print("gallery", tuple(gallery.shape), "best match per query:", sims.argmax(-1).tolist())
        print(f"mean top-1 similarity {sims.max(-1).values.mean().item():.4f}")


if __name__ == "__main__":
    main()
