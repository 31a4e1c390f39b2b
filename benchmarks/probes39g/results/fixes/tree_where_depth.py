# Inference for one regression tree stored as tensors (feature, threshold, children,
# leaf value), walked node by node like the textbook recursive predict. fullgraph=True
# because the scoring service wants one graph per call.
import torch

torch.manual_seed(0)

# depth-2 tree: node 0 splits on feature 1, nodes 1/2 split on features 0/2, 3..6 are leaves
feature = torch.tensor([1, 0, 2, -1, -1, -1, -1])
threshold = torch.tensor([0.0, -0.5, 0.3, 0.0, 0.0, 0.0, 0.0])
left = torch.tensor([1, 3, 5, -1, -1, -1, -1])
right = torch.tensor([2, 4, 6, -1, -1, -1, -1])
value = torch.tensor([0.0, 0.0, 0.0, -1.5, -0.2, 0.4, 2.0])


def predict_row(x):
    node = torch.tensor(0)
    while feature[node] >= 0:
        go_left = x[feature[node]] <= threshold[node]
        node = torch.where(go_left, left[node], right[node])
    return value[node]


def predict(X, depth=2):
    node = torch.zeros(X.shape[0], dtype=torch.long)
    for _ in range(depth):
        f = feature[node]
        go_left = X.gather(1, f.clamp_min(0)[:, None])[:, 0] <= threshold[node]
        node = torch.where(f >= 0, torch.where(go_left, left[node], right[node]), node)
    return value[node]


cpredict = torch.compile(predict, fullgraph=True)
X = torch.randn(6, 3)
print("eager   ", predict(X).tolist())
print("compiled", cpredict(X).tolist())
