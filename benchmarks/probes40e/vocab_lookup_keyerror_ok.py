# Token featurizer: a custom op looks ids up in a frozen vocabulary table and fails fast
# with KeyError on an id the table does not have. The compiled featurizer calls the op;
# the third batch carries an unknown id, so the job stops there, by design.
import torch


@torch.library.custom_op("probes40e::vocab_lookup", mutates_args=())
def vocab_lookup(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    bad = ids[(ids < 0) | (ids >= table.shape[0])]
    if bad.numel():
        raise KeyError(f"unknown token id {int(bad[0])}")
    return table[ids]


@vocab_lookup.register_fake
def _(ids, table):
    return table.new_empty((*ids.shape, table.shape[1]))


torch.manual_seed(0)
table = torch.randn(100, 16)
proj = torch.nn.Linear(16, 4)


@torch.compile
def featurize(ids):
    return torch.tanh(proj(vocab_lookup(ids, table).mean(1)))


batches = [torch.randint(0, 100, (8, 12)) for _ in range(3)]
batches[2][5, 7] = 123
for i, ids in enumerate(batches):
    with torch.no_grad():
        print(f"batch {i} feature sum {featurize(ids).sum().item():.4f}")
