"""Running the sitecustomize a compdiag hook directory shadows.

compdiag puts a directory with its own sitecustomize.py first on a child's PYTHONPATH (bisect's
probes, the workers of a followed torchrun launch); Python imports only the first
sitecustomize it finds, so each hook runs the one it shadows, as Python would have."""

from __future__ import annotations

import os
import sys


def run_shadowed(here: str) -> None:
    """Import the next `sitecustomize` on sys.path after the directory `here`, if any."""
    import importlib.machinery
    import importlib.util

    here = os.path.abspath(here)
    others = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)
