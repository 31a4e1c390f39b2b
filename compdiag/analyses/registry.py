"""The plugin manager every analysis asks for the diagnosis kinds: the built-in modules, then
whatever the `compdiag.diagnoses` entry-point group adds."""

from __future__ import annotations

import functools

import pluggy

from compdiag.analyses import hookspecs

ENTRY_POINT_GROUP = "compdiag.diagnoses"


@functools.lru_cache(maxsize=1)
def plugin_manager() -> pluggy.PluginManager:
    from compdiag.analyses.diagnoses import BUILTIN

    pm = pluggy.PluginManager("compdiag")
    pm.add_hookspecs(hookspecs)
    for module in BUILTIN:
        pm.register(module, name=module.KIND)
    try:
        pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    except Exception:  # noqa: BLE001 - a broken third-party kind must not break explain
        pass
    return pm
