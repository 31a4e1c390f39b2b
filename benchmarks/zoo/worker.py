"""One zoo model, compiled: inference, then one training step. The program the harness runs
plain (`python worker.py MODEL ...`) and under `compdiag run`.

As PyTorch's dynamo benchmarks do (benchmarks/dynamo/common.py): random weights from the
model's config, a fixed seed, `forward_pass` under `torch.no_grad()` in eval mode, then
`forward_and_backward_pass` in train mode (forward, `reduce_to_scalar_loss`, backward,
optimizer step). The model is compiled with `torch.compile(model, mode=MODE)`; the loss,
backward and SGD step run eagerly around it (the benchmarks also keep the optimizer step out
of the compiled region). `torch._dynamo.reset()` between the two phases makes the training
step a fresh compile instead of a recompile of the inference graph.

What it prints (stdout) is the run's result, compared between the plain run and the
`compdiag run`: each output's shape and its sum, the loss and a checksum of the updated
parameters. With --counters FILE it writes what torch itself counted in this process
(`torch._dynamo.utils.counters`): graphs, graph breaks with their reasons.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from models import MODELS  # noqa: E402


def tensors(out: Any) -> list[torch.Tensor]:
    """Every tensor in a model's output (tensors, lists, tuples, dicts, HF ModelOutputs)."""
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, dict):
        return [t for v in out.values() for t in tensors(v)]
    if isinstance(out, (list, tuple)):
        return [t for v in out for t in tensors(v)]
    if hasattr(out, "to_tuple"):
        return tensors(out.to_tuple())
    return []


def digest(out: Any) -> str:
    parts = []
    for t in tensors(out):
        s = t.detach().double().sum().item() if t.numel() else 0.0
        parts.append(f"{tuple(t.shape)}:{s:.6e}")
    return " ".join(parts)


def to_device(x: Any, device: torch.device) -> Any:
    if isinstance(x, torch.Tensor):
        return x.to(device)
    if isinstance(x, dict):
        return {k: to_device(v, device) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(to_device(v, device) for v in x)
    return x


def torch_counts() -> dict:
    """What torch counted in this process: its own graph and graph-break numbers."""
    from torch._dynamo.utils import counters

    breaks = dict(counters["graph_break"])
    return {
        "graphs": int(counters["stats"]["unique_graphs"]),
        "graph_breaks": int(sum(breaks.values())),
        "graph_break_reasons": breaks,
        "calls_captured": int(counters["stats"]["calls_captured"]),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", choices=sorted(MODELS))
    ap.add_argument("--compile-mode", default="default",
                    help="torch.compile's mode (default, reduce-overhead, max-autotune)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--calls", type=int, default=3,
                    help="inference calls (default 3: reduce-overhead records on the 2nd, replays on the 3rd)")
    ap.add_argument("--no-train", action="store_true", help="inference only")
    ap.add_argument("--counters", help="write torch's own counts here (JSON)")
    args = ap.parse_args(argv)
    spec = MODELS[args.model]
    device = torch.device(args.device)
    mode = None if args.compile_mode == "default" else args.compile_mode

    torch.manual_seed(1337)
    model, inputs, kwargs = spec.build()
    train_kwargs = spec.train_kwargs() if spec.train_kwargs else {}
    model = model.to(device)
    inputs, kwargs = to_device(inputs, device), to_device(kwargs, device)
    train_kwargs = to_device(train_kwargs, device)

    model.eval()
    compiled = torch.compile(model, mode=mode)
    with torch.no_grad():
        for i in range(args.calls):
            out = compiled(*inputs, **kwargs)
            print(f"infer {i}: {digest(out)}", flush=True)
    del out

    if spec.train and not args.no_train:
        from torch._dynamo.testing import reduce_to_scalar_loss

        torch._dynamo.reset()
        model.train()
        compiled = torch.compile(model, mode=mode)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        opt.zero_grad(set_to_none=True)
        out = compiled(*inputs, **kwargs, **train_kwargs)
        if isinstance(out, dict):  # a ModelOutput: its tensors (not a KV cache object)
            out = [v for v in out.values() if isinstance(v, torch.Tensor)]
        loss = reduce_to_scalar_loss(out)
        loss.backward()
        opt.step()
        checksum = sum(p.detach().double().sum().item() for p in model.parameters())
        print(f"train: loss={loss.item():.6e} params={checksum:.6e}", flush=True)

    if args.counters:
        Path(args.counters).write_text(json.dumps(torch_counts(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
