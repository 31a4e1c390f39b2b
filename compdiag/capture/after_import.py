"""A patch applied once a module is imported (now, if it already is): how capture reaches
into torch modules the program may import later (DDP, DDPOptimizer, select_algorithm) without
importing them itself, and how the child installs the hooks at the program's own `import
torch`. Its own module, so the capture modules that patch (hooks.py, ddp.py, child.py) share
it without importing each other."""

from __future__ import annotations

from typing import Any, Callable


def after_import(name: str, fn: Callable[[Any], None]) -> None:
    """Call fn(module) once `name` is imported (now, if it already is)."""
    import importlib.abc
    import sys

    if name in sys.modules:
        fn(sys.modules[name])
        return

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
            if fullname != name:
                return None
            sys.meta_path.remove(self)
            import importlib.util

            spec = importlib.util.find_spec(fullname)
            if spec is None or spec.loader is None:
                return spec
            exec_module = spec.loader.exec_module

            def exec_and_patch(module: Any) -> None:
                exec_module(module)
                try:
                    fn(module)
                except Exception:  # noqa: BLE001 - fail open
                    pass

            spec.loader.exec_module = exec_and_patch  # type: ignore[method-assign]
            return spec

    sys.meta_path.insert(0, Finder())


def untraced(module_name: str) -> None:
    """Make Dynamo skip the file of a capture module whose wrappers replace torch functions
    code it traces may call (OptimizedModule.__init__: compiled autograd builds one in traced
    code): skipped like torch's own file, the call breaks where it would under plain python,
    at its caller, and never in compdiag's file."""
    try:
        from torch._dynamo import trace_rules

        trace_rules.add(module_name)
    except Exception:  # noqa: BLE001, S110 - fail open: a torch without it traces the wrapper
        pass
