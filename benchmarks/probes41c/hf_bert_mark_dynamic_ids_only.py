"""Sentence-classification inference with a compiled tiny BERT on batches padded to the batch's
longest sentence (dynamic padding, DataCollatorWithPadding style).

To avoid one recompile per padded length the user marks the sequence dimension of input_ids as
dynamic - but not of attention_mask, which the model combines with input_ids; the mask's static
length forces input_ids' length to a constant, and dynamo raises ConstraintViolationError on the
first batch. Follows the common user report of torch's "Constraints violated ... You marked ...
as dynamic but your code specialized it" with HF models (no single issue number checked).
"""
import torch
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)

LENGTHS = [[7, 11, 9], [14, 5, 12], [6, 6, 8]]  # sentence lengths per batch


def collate(lengths, g):
    longest = max(lengths)
    ids = torch.zeros(len(lengths), longest, dtype=torch.long)
    mask = torch.zeros(len(lengths), longest, dtype=torch.long)
    for row, n in enumerate(lengths):
        ids[row, :n] = torch.randint(5, 200, (n,), generator=g)
        mask[row, :n] = 1
    return {"input_ids": ids, "attention_mask": mask}


def main():
    config = BertConfig(vocab_size=200, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, num_labels=3)
    model = BertForSequenceClassification(config).eval()
    cmodel = torch.compile(model)

    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for i, lengths in enumerate(LENGTHS):
            batch = collate(lengths, g)
            torch._dynamo.mark_dynamic(batch["input_ids"], 1)
            logits = cmodel(**batch).logits
            print(f"batch {i} padded to {batch['input_ids'].shape[1]} preds {logits.argmax(-1).tolist()}")


if __name__ == "__main__":
    main()
