"""pytorch/pytorch#121369 (the parameter-shape recompiles behind #131825, "Suggest
force_parameter_static_shapes on the recompile log") as met in microsoft/dion#23: a
fullgraph-compiled update applied to each layer's parameter recompiles for every new
parameter shape (parameters are static by default) until the recompile limit ends the run
with FailOnRecompileLimitHit."""
import torch


@torch.compile(fullgraph=True, backend="eager")
def post_orthogonalize(X):
    return X / (X.norm() + 1e-7)


params = [torch.nn.Parameter(torch.randn(64, 8 * (k + 1))) for k in range(12)]
with torch.no_grad():
    for p in params:
        post_orthogonalize(p)
