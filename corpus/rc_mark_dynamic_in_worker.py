"""Recompile: probes46b collate_mark_dynamic_workers_mlp. The collate function pads each batch
and marks its length dynamic, but it runs in DataLoader worker processes: the batch reaches the
main process as a copy without the mark, and under `dynamic=False` every new length compiles
again. The mark's line is the cause; marking the batch in the loop that calls the model works."""
import torch
from torch.utils.data import DataLoader


def pad_collate(batch):
    tokens = torch.nn.utils.rnn.pad_sequence(batch, batch_first=True)
    torch._dynamo.mark_dynamic(tokens, 1)  # <- diagnosis
    return tokens


def main():
    data = [torch.ones(n) for n in (3, 5, 4, 7, 6, 2, 8, 9)]
    model = torch.compile(lambda t: t.sum(1) * 2, backend="eager", dynamic=False)
    loader = DataLoader(data, batch_size=2, collate_fn=pad_collate, num_workers=2)
    for tokens in loader:
        out = model(tokens)
    print(out.shape)


if __name__ == "__main__":
    main()
