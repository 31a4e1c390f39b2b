"""Fine-tuning a BERT sentence classifier with the model compiled under mode="max-autotune" and
bf16 autocast, batches padded to a fixed length (one shape for the autotuned kernels and the CUDA
graphs). The whole model compiles a second time, on the second training step:
transformers decides the loss from `config.problem_type`, and when it is None the forward sets
it (`config.problem_type = "single_label_classification"` for integer labels and num_labels > 1,
in BertForSequenceClassification.forward in 4.x and 5.x; ForSequenceClassificationLoss does the
same for the models that use it).
Dynamo traced the first step with `problem_type is None` true and guards on it; the library's own
write fails that guard: "Recompiling function ... triggered by the following guard failure(s):
- 0/0: self.config.problem_type is None" (or L['self'].config.problem_type). With max-autotune
the second compile autotunes every GEMM again and records new CUDA graphs. The user line is the
compiled model's call; the fix is to set `problem_type` in the config before compiling. The
same config write, in a model's own copy of the code, is quoted in zai-org/ChatGLM3#1316
("torch.compile generates many graphs").

Why it should reproduce on torch 2.11: the mutation is in every transformers release since 4.6
(2021); Dynamo has guarded on attributes of user objects it reads, and replayed attribute
writes as side effects, since 2.0. An eager forward without labels (the untrained model's
predictions) runs before training, so the config is still unset when compiling and
transformers 5's output-capturing hooks are installed outside the compiled code."""
import torch
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)
device = "cuda"

config = BertConfig(vocab_size=512, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=128, max_position_embeddings=64, num_labels=3)
model = BertForSequenceClassification(config).to(device)


def batch(step, max_len=32):  # padded to max_len, as a fixed-length collator does
    lengths = [max_len - 5 * ((step + i) % 4) for i in range(8)]
    ids = torch.zeros(8, max_len, dtype=torch.long)
    mask = torch.zeros(8, max_len, dtype=torch.long)
    for i, n in enumerate(lengths):
        ids[i, :n] = torch.randint(1, config.vocab_size, (n,))
        mask[i, :n] = 1
    labels = torch.randint(0, config.num_labels, (8,))
    return ids.to(device), mask.to(device), labels.to(device)


ids, mask, _ = batch(0)
with torch.no_grad():  # the untrained model's predictions, in eager
    model.eval()
    print("initial predictions", model(input_ids=ids, attention_mask=mask).logits.argmax(-1).tolist())
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
compiled = torch.compile(model, mode="max-autotune")
for step in range(4):
    ids, mask, labels = batch(step)
    with torch.autocast(device, dtype=torch.bfloat16):
        out = compiled(input_ids=ids, attention_mask=mask, labels=labels)
    out.loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
print("loss", round(out.loss.item(), 4), config.problem_type)
