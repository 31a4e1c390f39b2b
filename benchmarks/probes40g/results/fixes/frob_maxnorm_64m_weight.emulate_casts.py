# Global Frobenius max-norm constraint on a large (8192 x 8192, 67M-element) weight matrix,
# applied by a compiled helper after each update, which also returns the norm for logging.
# Compiled and eager norms differ by ~0.6%, so the projected weights differ by ~0.6%.
# Here the compiled result is the accurate one: eager torch.linalg.vector_norm accumulates
# the 67M squares in float32 lanes and comes out ~0.6% low against a float64 reference,
# while Inductor's generated reduction is within 2e-7 of it.
import torch
torch._inductor.config.emulate_precision_casts = True  # compdiag: "to make the compiled code round like eager"

torch.manual_seed(0)


@torch.compile
def project_max_norm(w, max_norm: float):
    norm = torch.linalg.vector_norm(w)
    scale = (max_norm / norm).clamp(max=1.0)
    return w * scale, norm


w = torch.randn(8192, 8192) * 0.02
for step in range(3):
    w = w + 0.001 * torch.randn_like(w)  # stand-in for an optimizer update
    w, norm = project_max_norm(w, 150.0)
    print(f"step {step}: norm before projection {norm.item():.4f}, after "
          f"{torch.linalg.vector_norm(w.double()).item():.4f}")
