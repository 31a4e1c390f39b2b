"""env.json of a report: the machine as torch's own `collect_env` sees it (what PyTorch's issue
template asks for), the run's versions as recorded, and the Inductor/Dynamo settings the run
compiled with that differ from this torch's defaults.

The config comes from the run itself (compilation_metrics carries `inductor_config` and
`dynamo_config` as JSON), not from this process, whose settings need not be the run's."""

from __future__ import annotations

import json
import platform
import sys
from importlib import metadata
from typing import Any

_TRITON_DISTS = ("triton", "pytorch-triton", "pytorch-triton-rocm", "pytorch-triton-xpu")
_CONFIG_MODULES = {"inductor_config": "torch._inductor.config",
                   "dynamo_config": "torch._dynamo.config"}


def machine() -> dict[str, Any]:
    """torch, triton, CUDA, driver, GPU, Python and OS versions of this machine."""
    out: dict[str, Any] = {"python": sys.version.split()[0], "platform": platform.platform()}
    try:
        from torch.utils import collect_env

        info = collect_env.get_env_info()._asdict()
    except Exception as exc:  # noqa: BLE001 - a report without it still helps
        out["collect_env_error"] = f"{type(exc).__name__}: {exc}"
        info = {}
    keep = ("torch_version", "is_debug_build", "cuda_compiled_version", "hip_compiled_version",
            "is_cuda_available", "cuda_runtime_version", "nvidia_driver_version",
            "nvidia_gpu_models", "cudnn_version", "os", "libc_version", "python_version",
            "python_platform", "gcc_version", "pip_packages", "cpu_info")
    out.update({k: info.get(k) for k in keep if k in info})
    if "torch_version" not in out:
        out["torch_version"] = _version("torch")
    out["triton_version"] = next((v for v in map(_version, _TRITON_DISTS) if v), None)
    out["compdiag_version"] = _version("compdiag")
    return out


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def run_config(metrics: dict[str, Any] | None) -> dict[str, Any]:
    """{inductor_config: {key: value}, dynamo_config: {...}}: the run's settings that differ
    from this torch's defaults (a key this torch does not know is kept, marked so)."""
    out: dict[str, Any] = {}
    for field, module in _CONFIG_MODULES.items():
        raw = (metrics or {}).get(field)
        try:
            values = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            values = None
        if not isinstance(values, dict):
            continue
        defaults = _defaults(module)
        if defaults is None:
            out[field] = {"error": f"cannot read {module}'s defaults"}
            continue
        changed = {}
        for key, value in sorted(values.items()):
            if key.startswith("_"):
                continue
            if key not in defaults:
                changed[key] = {"value": value, "note": "not a setting of this torch"}
            elif _plain(defaults[key]) != _plain(value, as_set=isinstance(
                    defaults[key], (set, frozenset))):
                changed[key] = value
        out[field] = changed
    return out


def _defaults(module: str) -> dict[str, Any] | None:
    """Each setting's default (torch.utils._config_module's entries), else None."""
    try:
        import importlib

        mod = importlib.import_module(module)
        entries = getattr(mod, "_config")
        return {k: getattr(e, "default") for k, e in entries.items()}
    except Exception:  # noqa: BLE001 - private API: its shape may change between releases
        return None


def _plain(value: Any, as_set: bool = False) -> Any:
    """Compare as the run's JSON dump spells values (tuples as lists, objects by repr, sets
    as lists in any order)."""
    if isinstance(value, (set, frozenset)) or (as_set and isinstance(value, list)):
        return sorted(map(repr, value))
    try:
        return json.loads(json.dumps(value, default=repr, sort_keys=True))
    except (TypeError, ValueError):
        return repr(value)
