"""Word error rate of an ASR system's n-best outputs against references, with the
Levenshtein distance computed on token-id tensors."""
import torch


@torch.compile
def edit_distance(hyp, ref):
    prev = list(range(ref.numel() + 1))
    for i in range(1, hyp.numel() + 1):
        cur = [i]
        for j in range(1, ref.numel() + 1):
            substitution = prev[j - 1] + (0 if hyp[i - 1] == ref[j - 1] else 1)
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, substitution))
        prev = cur
    return prev[-1]


torch.manual_seed(0)
references = [torch.randint(1, 50, (n,)) for n in (6, 8, 5, 7)]
hypotheses = []
for ref in references:
    hyp = ref.clone()
    hyp[torch.rand(ref.numel()) < 0.3] = 0          # substitution errors
    hypotheses.append(hyp[: ref.numel() - 1])       # one deletion at the end

total_errors, total_words = 0, 0
for hyp, ref in zip(hypotheses, references):
    errors = edit_distance(hyp, ref)
    total_errors += errors
    total_words += ref.numel()
    print(f"ref {ref.numel()} words, {errors} errors")
print(f"WER {total_errors / total_words:.3f}")
