"""The repro's imports are what FX's code names. probes32d lstm_allow_rnn_forecast: the minimal
graph's `torch.zeros(..., device = device(type='cpu'))` raised NameError in repro.py (it
imported only torch), so the repro failed for a reason no torch fix would remove."""

from __future__ import annotations

import torch
import torch.fx

from compdiag.minify.repro import _imports


def _graph(**kwargs) -> torch.fx.GraphModule:
    g = torch.fx.Graph()
    x = g.placeholder("x")
    z = g.call_function(torch.zeros, (2,), kwargs)
    g.output(g.call_function(torch.add, (x, z)))
    return torch.fx.GraphModule(torch.nn.Module(), g)


def test_a_graph_that_names_a_device_imports_torchs_device():
    gm = _graph(device=torch.device("cpu"))
    assert "device(type='cpu')" in gm.code
    imports = _imports(gm)
    assert "from torch import device" in imports
    scope: dict = {}
    exec("\n".join(["import torch", *sorted(imports)]), scope)  # the repro's own header
    assert scope["device"] is torch.device
    assert "from torch import device" not in _imports(_graph())
