# Image classification service: a small ViT from transformers (random weights, built from a
# config) with its ViTImageProcessor.  The user compiles the whole predict() function,
# preprocessing included.  The processor is Python/validation code, not tensor math: inside
# it huggingface_hub's validate_typed_dict runs `import annotationlib` (a Python 3.14 module,
# missing on 3.11, caught by try/except ImportError), and Dynamo cannot trace a failing import,
# so the frame breaks inside the processor call.  Fix: run proc(...) eagerly and compile only
# the model call.
import torch
from transformers import ViTConfig, ViTForImageClassification, ViTImageProcessor

torch.manual_seed(0)
cfg = ViTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                image_size=32, patch_size=8, num_labels=5)
model = ViTForImageClassification(cfg).eval()
proc = ViTImageProcessor(size={"height": 32, "width": 32})


@torch.compile
def classify(pixel_values):
    with torch.no_grad():
        logits = model(pixel_values=pixel_values).logits
    return logits.softmax(-1)


def predict(images):  # FIX: preprocessing eager, only the model compiled
    inputs = proc(images=images, return_tensors="pt")
    return classify(inputs["pixel_values"])


for batch in range(3):
    images = (torch.rand(4, 3, 48, 48) * 255).to(torch.uint8)
    probs = predict(images)
    print(f"batch {batch} top1 {probs.argmax(-1).tolist()} p {probs.max(-1).values.mean().item():.4f}")
