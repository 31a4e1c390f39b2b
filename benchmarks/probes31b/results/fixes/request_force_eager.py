import numpy as np
import torch
import torch.nn as nn

torch.compiler.set_stance("force_eager")

torch.manual_seed(0)
N_FEATURES = 16

scorer = nn.Sequential(nn.Linear(N_FEATURES, 32), nn.ReLU(), nn.Linear(32, 1)).eval()


@torch.compile
def handle_request(body: bytes):
    rows = np.frombuffer(body, dtype=np.float32).reshape(-1, N_FEATURES)
    feats = torch.from_numpy(rows)
    with torch.no_grad():
        scores = torch.sigmoid(scorer(feats)).squeeze(-1)
    return scores


def client_payload(n_rows, rng):
    return rng.normal(size=(n_rows, N_FEATURES)).astype(np.float32).tobytes()


rng = np.random.default_rng(0)
for request_id, n_rows in enumerate([4, 4, 7, 2]):
    body = client_payload(n_rows, rng)
    scores = handle_request(body)
    print(f"request {request_id}: {n_rows} rows, top score {scores.max().item():.4f}")
