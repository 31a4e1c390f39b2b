"""Ensemble vote tally into a preallocated integer buffer.

Each of several voters picks one class; its vote is weighted by the voter's
reliability (0.6-1.6) and the tally is written into a preallocated int64 buffer
with torch.sum(..., out=).  Eager casts every weighted vote to the buffer's
integer dtype before summing; the compiled tally sums in float and truncates
at the end, so the counts (and sometimes the winner) differ.
Follows pytorch/pytorch#117623 (reduction with an integer out= tensor: eager
casts the input first, the traced graph reduces in float then casts).
"""
import torch

torch.manual_seed(0)
N_VOTERS, N_CLASSES = 7, 5


class Tally:
    def __init__(self):
        self.buf = torch.zeros(N_CLASSES, dtype=torch.int64)

    def __call__(self, choices, reliability):
        votes = torch.nn.functional.one_hot(choices, N_CLASSES).float()
        return tally_votes(votes, reliability, self.buf)


@torch.compile
def tally_votes(votes, reliability, buf):
    weighted = votes * reliability.unsqueeze(1)
    torch.sum(weighted, dim=0, out=buf)
    return buf.clone()


def main():
    tally = Tally()
    for rnd in range(3):
        choices = torch.randint(0, N_CLASSES, (N_VOTERS,))
        reliability = 0.6 + torch.rand(N_VOTERS)
        counts = tally(choices, reliability)
        print(f"round {rnd}: tally {counts.tolist()} winner {int(counts.argmax())}")


if __name__ == "__main__":
    main()
