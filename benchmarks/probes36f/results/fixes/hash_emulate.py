# Feature hashing for a recommender: raw 64-bit item ids (e.g. hashes of URLs) are mapped to a
# fixed number of embedding buckets with a mid-square hash, (id * id) % NUM_BUCKETS, then the
# bucket embeddings are mean-pooled per user. The bucketing helper is compiled.
import torch
import torch.nn as nn

torch.manual_seed(0)
torch._inductor.config.emulate_precision_casts = True
NUM_BUCKETS = 1000


def hash_buckets(ids):
    # mid-square hash; Python-style % keeps the bucket in [0, NUM_BUCKETS)
    return (ids * ids) % NUM_BUCKETS


ids = torch.randint(0, 2**40, (8, 5), dtype=torch.int64)   # 8 users x 5 items
emb = nn.Embedding(NUM_BUCKETS, 4)

compiled_hash = torch.compile(hash_buckets)
b_eager = hash_buckets(ids)
b_comp = compiled_hash(ids)

print("eager buckets   :", b_eager[0].tolist())
print("compiled buckets:", b_comp[0].tolist())
print("eager min/max   :", b_eager.min().item(), b_eager.max().item())
print("compiled min/max:", b_comp.min().item(), b_comp.max().item())
print("buckets differing:", (b_eager != b_comp).sum().item(), "of", b_eager.numel())

with torch.no_grad():
    user_vec = emb(b_eager).mean(1)
print("user vec[0]:", [round(v, 4) for v in user_vec[0].tolist()])
