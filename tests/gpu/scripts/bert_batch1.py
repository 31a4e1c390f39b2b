# BertModel from transformers, random weights (BertConfig(), no download), batch 1, fp32: the
# seed's launch-bound inference, where TF32 is off unless the program turns it on.
import torch
from transformers import BertConfig, BertModel

model = BertModel(BertConfig()).cuda().eval()
opt = torch.compile(model)
ids = torch.randint(0, 30000, (1, 128), device="cuda")
with torch.no_grad():
    for _ in range(3):
        out = opt(input_ids=ids).last_hidden_state
torch.cuda.synchronize()
print("bert", tuple(out.shape))
