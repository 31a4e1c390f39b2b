"""pytorch/pytorch#101160 ("Fine-tuning HuggingFace wav2vec 2.0 with `torch.compile`", open) and
huggingface/transformers#22849: fine-tuning a wav2vec 2.0 audio classifier with the model
compiled. In training mode the model applies SpecAugment to the feature encoder's output, and
transformers computes that mask in NumPy (`_compute_mask_indices`: `np.random.rand(1).item()`,
`attention_mask.sum(-1).tolist()`, `np.random.choice` in a Python loop over the batch), then
copies it to the GPU with `torch.tensor`. Dynamo traces the NumPy draw as a tensor and breaks on
its `.item()` (a data-dependent scalar, `aten._local_scalar_dense`), then again in the loop and
the mask write that follow, so every training step graph-breaks inside the library, in the
middle of the model's forward. The maintainers' advice: pass `mask_time_indices` computed
outside the model, or set `apply_spec_augment=False` (`mask_time_prob=0`). The user line is the
compiled model's call.

Why it should reproduce on torch 2.11: the pytorch issue is open; transformers' PRs that rewrote
the function in torch (huggingface/transformers#24668, #31538) were closed unmerged, and
transformers 5.25's `_compute_mask_indices` is still NumPy (the same in 4.x since 2021); Dynamo
breaks on a data-dependent `.item()` unless `capture_scalar_outputs` is set, long before 2.11.
The config is random-weight and tiny (no download); layerdrop is 0, so the encoder's
layer-skipping draw adds no break of its own; the feature encoder is frozen (transformers'
audio-classification recipe), so its `hidden_states.requires_grad = True` does not run; and an
eager forward before training installs transformers 5's output-capturing hooks outside the
compiled code."""
import numpy as np
import torch
from transformers import Wav2Vec2Config, Wav2Vec2ForSequenceClassification

torch.manual_seed(0)
np.random.seed(0)  # SpecAugment draws from NumPy
torch.set_float32_matmul_precision("high")
device = "cuda"

config = Wav2Vec2Config(
    hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
    conv_dim=(32, 32), conv_stride=(5, 2), conv_kernel=(10, 3), num_feat_extract_layers=2,
    num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, layerdrop=0.0,
    mask_time_prob=0.2, mask_time_length=4, num_labels=4, classifier_proj_size=32,
)
model = Wav2Vec2ForSequenceClassification(config).to(device)
model.freeze_feature_encoder()  # as transformers' audio-classification example does
with torch.no_grad():  # the untrained model's loss, in eager, before training
    model.eval()
    probe = model(input_values=torch.randn(4, 1600, device=device),
                  labels=torch.zeros(4, dtype=torch.long, device=device))
    print("initial loss", round(probe.loss.item(), 4))
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
compiled = torch.compile(model)

for step in range(3):
    audio = torch.randn(4, 1600, device=device)
    labels = torch.randint(0, config.num_labels, (4,), device=device)
    out = compiled(input_values=audio, labels=labels)
    out.loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
print("loss", round(out.loss.item(), 4))
