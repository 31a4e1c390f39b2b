"""pytest plugin (entry point `pytest11`): `@pytest.mark.compdiag_accuracy` fails a test whose
torch.compile calls disagree with eager, with a readable report.

    @pytest.mark.compdiag_accuracy(rtol=1e-3, atol=1e-5)
    def test_model():
        out = torch.compile(model)(x)

Torch is imported only for marked tests, so the plugin costs nothing elsewhere."""

from __future__ import annotations

from typing import Any

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "compdiag_accuracy(rtol=None, atol=None): fail the test when a compiled "
                   "graph's outputs disagree with eager (compdiag)")


def _format(checks: list[Any]) -> str:
    lines = ["compiled graphs disagree with eager (compdiag accuracy check):"]
    for c in checks:
        for o in c.outputs:
            if o.ok:
                continue
            lines.append(f"  graph {c.compile_id}, {o.output}: {o.detail.get('reason', 'mismatch')}"
                         f" (max abs {o.max_abs}, max rel {o.max_rel})")
        node = c.divergent_node or {}
        if node.get("node"):
            frame = node.get("user_frame") or {}
            where = f" at {frame.get('filename')}:{frame.get('lineno')}" if frame else ""
            lines.append(f"    first divergent node: {node['node']} ({node['op']}){where}")
            if frame.get("line"):
                lines.append(f"      {frame['line']}")
        if c.error:
            lines.append(f"  graph {c.compile_id}: the check itself failed: {c.error}")
    return "\n".join(lines)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    marker = item.get_closest_marker("compdiag_accuracy")
    if marker is None:
        return (yield)
    import torch._dynamo

    from compdiag.capture.accuracy import AccuracyChecker, Tolerance

    checks: list[Any] = []
    checker = AccuracyChecker(checks.append, tol=Tolerance(marker.kwargs.get("rtol"),
                                                          marker.kwargs.get("atol")))
    torch._dynamo.reset()  # graphs compiled by earlier tests would skip the check
    uninstall = checker.install()
    try:
        result = yield
    finally:
        uninstall()
        torch._dynamo.reset()
    failed = [c for c in checks if not c.ok]
    if failed:
        raise pytest.fail.Exception(_format(failed), pytrace=False)
    return result
