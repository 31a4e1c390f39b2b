"""The plugin manager every analysis asks for the diagnosis kinds: the built-in modules, then
whatever the `compdiag.diagnoses` entry-point group adds; and the kinds' specs
(analyses/kind_spec.py), collected through the `compdiag_kinds` hook from both alike."""

from __future__ import annotations

import functools

import pluggy

from compdiag.analyses import hookspecs
from compdiag.analyses.kind_spec import KindSpec

ENTRY_POINT_GROUP = "compdiag.diagnoses"


@functools.lru_cache(maxsize=1)
def plugin_manager() -> pluggy.PluginManager:
    from compdiag.analyses.diagnoses import builtin_modules

    pm = pluggy.PluginManager("compdiag")
    pm.add_hookspecs(hookspecs)
    for module in builtin_modules():
        pm.register(module, name=module.KIND)
    try:
        pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    except Exception:  # noqa: BLE001 - a broken third-party kind must not break explain
        pass
    return pm


def kind_specs() -> dict[str, KindSpec]:
    """Every registered kind's spec by name, in tie order (the first spec of a name wins:
    built-in kinds are registered first)."""
    specs: dict[str, KindSpec] = {}
    # pluggy calls the last registered first: reversed, built-ins come first.
    for found in reversed(plugin_manager().hook.compdiag_kinds()):
        for spec in found or ():
            if isinstance(spec, KindSpec):
                specs.setdefault(spec.name, spec)
    return dict(sorted(specs.items(), key=lambda kv: kv[1].tie))


def kind_spec(name: str) -> KindSpec:
    """The spec of a kind; an undeclared kind's stand-in (its name, last on a tie), never a
    KeyError."""
    return kind_specs().get(name) or KindSpec.unknown(name)
