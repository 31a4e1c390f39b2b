import torch
import torch.nn.functional as F

torch.manual_seed(0)
NUM_BUCKETS, MAX_DIST = 8, 16


def rel_buckets(q_len, k_len):
    rel = torch.arange(k_len)[None, :] - torch.arange(q_len)[:, None]      # negative = past
    sign = torch.where(rel < 0, 1, 0) * (NUM_BUCKETS // 2)
    mag = rel.abs().clamp(max=MAX_DIST - 1)
    return sign + (mag * (NUM_BUCKETS // 2)) // MAX_DIST


def attention(q, k, v, key_valid, bias_table):
    # q, k, v: (batch, heads, len, dim); key_valid: (batch, len) bool
    scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    scores = scores + bias_table[rel_buckets(q.shape[2], k.shape[2])].permute(2, 0, 1)
    scores = scores.masked_fill(~key_valid[:, None, None, :], float("-inf"))
    probs = scores.softmax(-1)
    probs = torch.where(key_valid.any(-1)[:, None, None, None], probs, torch.zeros_like(probs))
    out = probs @ v
    return out, torch.div(rel_buckets(4, 4), -3, rounding_mode="floor"), (rel_buckets(4, 4) - 5) % 4


q, k, v = (torch.randn(3, 2, 10, 16) for _ in range(3))
key_valid = torch.ones(3, 10, dtype=torch.bool)
key_valid[1, 6:] = False
key_valid[2] = False                        # an empty sequence: every key masked
bias_table = torch.randn(NUM_BUCKETS, 2)

eager = attention(q, k, v, key_valid, bias_table)
comp = torch.compile(attention)(q, k, v, key_valid, bias_table)
diff = (eager[0] - comp[0]).abs().max().item()
print("nan in output: eager", eager[0].isnan().any().item(), "compiled", comp[0].isnan().any().item())
print("floor-div buckets equal", torch.equal(eager[1], comp[1]), "mod equal", torch.equal(eager[2], comp[2]))
print("row 0 out", [round(x, 4) for x in eager[0][0, 0, 0, :4].tolist()])
print(f"max |compiled - eager| within 1e-5: {diff < 1e-5}")
