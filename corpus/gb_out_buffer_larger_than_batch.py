"""Graph break: probes47d eval_probs_out_buffer, after test_misc.py's
test_out_variants_with_resizing_on_graph_inputs. A preallocated `out=` buffer sized for a full
batch gets a shorter last batch: eager resizes it, Dynamo does not trace that resize and breaks
(GB0247). A slice of the buffer, of the batch's rows, keeps one graph."""
import torch

buf = torch.empty(8, 3)


@torch.compile(backend="eager")
def probs(x):
    torch.sigmoid(x, out=buf)  # <- diagnosis
    return buf.sum()


for n in (8, 8, 5):
    total = probs(torch.randn(n, 3))
print(total.shape)
