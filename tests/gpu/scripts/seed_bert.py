# BertModel from transformers with random weights (BertConfig(), no download).
import torch
from transformers import BertConfig, BertModel

model = BertModel(BertConfig()).cuda().eval()
opt = torch.compile(model)
ids = torch.randint(0, 30000, (4, 128), device="cuda")
mask = torch.ones_like(ids)
with torch.no_grad():
    for _ in range(2):
        out = opt(input_ids=ids, attention_mask=mask).last_hidden_state
    ref = model(input_ids=ids, attention_mask=mask).last_hidden_state
torch.cuda.synchronize()
print("bert", tuple(out.shape), float((out - ref).abs().max()))
