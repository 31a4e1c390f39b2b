"""The plugin manager every analysis asks for the diagnosis kinds: the built-in modules, then
whatever the `compdiag.diagnoses` entry-point group adds; and the kinds' specs
(analyses/kind_spec.py), collected through the `compdiag_kinds` hook from both alike."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True)
class KindFault:
    """A kind that raised on this run: its diagnoses are missing, the others stand (explain
    fails open per kind, as `compdiag run` does per handler)."""
    kind: str
    error: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "error": self.error}

    def line(self) -> str:
        return (f"the {self.kind!r} analysis failed on this run ({self.error}); its diagnoses "
                "are missing, the others are complete. This is a compdiag bug: please report it "
                "with this line.")


def call_each(hook: Any, faults: list[KindFault], *, firstresult: bool = False,
              **kwargs: Any) -> list[Any]:
    """The results of every implementation of `hook`, in pluggy's own order (the last
    registered first), each called alone: one that raises adds a KindFault to `faults` and
    the rest still run. With `firstresult`, stop at the first result that is not None."""
    found: list[Any] = []
    for impl in reversed(hook.get_hookimpls()):
        try:
            got = impl.function(**{k: kwargs[k] for k in impl.argnames})
        except Exception as e:  # noqa: BLE001 - one kind's bug must not hide the others
            name = getattr(impl.plugin, "KIND", None) or impl.plugin_name
            faults.append(KindFault(str(name), f"{type(e).__name__}: {e}"[:300]))
            continue
        if got is not None:
            found.append(got)
            if firstresult:
                break
    return found


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
