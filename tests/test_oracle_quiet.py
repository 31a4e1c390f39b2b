"""minify/oracle.run_case: eager failing on a candidate is an answer ("invalid"), and the
traceback an FX module prints to stderr before raising stays out of the user's terminal
(probes48b timm_mambaout: minify printed "mat1 and mat2 shapes cannot be multiplied")."""

import torch
import torch.fx

from compdiag.minify.oracle import run_case


class _Bad(torch.nn.Module):
    def forward(self, x, w):
        return torch.nn.functional.linear(x, w)


def test_eager_failure_is_invalid_and_prints_nothing(capsys) -> None:
    gm = torch.fx.symbolic_trace(_Bad())
    outcome = run_case(gm, [torch.ones(1, 2), torch.ones(1, 1)], "failure", {})
    assert outcome[0] == "invalid" and "eager fails" in outcome[1]
    assert capsys.readouterr().err == ""
