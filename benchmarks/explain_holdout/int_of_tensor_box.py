"""pytorch/pytorch#93457 ("[Dynamo] Examples that recompile beyond cache size limit", case 1,
from vision_maskrcnn): `int()` of tensor elements in a compiled function, called on ten boxes
with a cache size limit of 2."""
import torch
import torch._dynamo as dynamo

dynamo.config.cache_size_limit = 2


def fn(box):
    w = int(box[2] + box[0])
    h = int(box[3] - box[1])
    return w + h


torch.manual_seed(0)
args = [torch.randint(0, 10000, size=(4,), dtype=torch.int64) for _ in range(10)]
opt_fn = torch.compile(fn, backend="eager")
res = [opt_fn(arg) for arg in args]
print(res)
