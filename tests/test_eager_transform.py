"""torch.autograd.functional's transforms inside a compiled function run in eager (a graph
break at the call) over code Dynamo compiles as its own frame, and differentiate that compiled
graph: the failure is said at the transform's call (analyses/func_transforms.py). probes33b
contractive_jacobian_penalty: `jacobian(enc, x[0], create_graph=True, vectorize=True)` at
line 25; before this test "Cannot access storage of BatchedTensorImpl" was put at the
encoder's line 13 with a bisect fix."""

from __future__ import annotations

from test_explain import Store

SOURCE = ("import torch\n" * 20 + "@torch.compile\ndef contractive_loss(x):\n"
          "    code = enc(x)\n    recon = dec(code)\n"
          "    J = torch.autograd.functional.jacobian(enc, x[0], create_graph=True, "
          "vectorize=True)\n    return recon.sum() + J.pow(2).sum()\n" + "x = 1\n" * 20)


def test_a_batched_tensor_in_compiled_code_under_autograd_functional_is_said_at_its_call(
        tmp_path):
    s = Store(tmp_path, exit_code=1)
    s.user.write_text(SOURCE)
    s.compile("0/0", co_name="contractive_loss", lineno=21)
    s.compile("1/0", co_name="forward", lineno=3)
    s.failure("1/0", stage="runtime", exc_type="NotImplementedError",
              message="Cannot access storage of BatchedTensorImpl", filename=str(s.user),
              lineno=23)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 25, d["user_frame"]
    assert "jacobian" in d["reason"] and "torch.func.jacrev" in d["fix"], d


def test_a_fake_tensor_failure_inside_torchs_own_builtin_names_the_users_call(tmp_path):
    """probes33e bayes_linreg_mvn_kl: `kl_divergence(q, prior)` of two MultivariateNormal failed
    in Dynamo inside torch's `_infer_size`; the reason was torch's words alone and the fix said
    to check the line in eager, where it runs."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", co_name="elbo", lineno=20)
    message = ("RuntimeError: expected a torch.Size as argument 1 [GB4315]: Dynamo failed to run "
               "FX node with fake tensors: call_function <built-in function _infer_size>(*((), "
               "()), **{}): got RuntimeError('expected a torch.Size as argument 1')")
    s.failure("0/0", stage="dynamo", exc_type="TorchRuntimeError", message=message,
              filename=str(s.user), lineno=28, line="kl = kl_divergence(q, prior)")
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "calling `kl_divergence(...)`, inside torch's own _infer_size()" in d["reason"], d
    assert d["fix"].startswith("Dynamo fails inside torch's own code for `kl_divergence(...)`")


PINN = ("import torch\nfrom torch.func import functional_call, hessian, vmap\n" + "x = 1\n" * 8 +
        "def u(params, xy):\n    return functional_call(net, params, (xy,)).squeeze()\n\n\n"
        "@torch.compile\ndef pde_loss(params, xy):\n"
        "    H = vmap(hessian(u, argnums=1), in_dims=(None, 0))(params, xy)\n"
        "    return (H[:, 0, 0] + H[:, 1, 1]).pow(2).mean()\n" + "x = 1\n" * 20)


def test_a_zero_tensor_failure_under_forward_mode_ad_is_said_at_the_transform(tmp_path):
    """probes32g pinn_hessian_laplacian (pytorch#177261's class): `vmap(hessian(u))` inside a
    compiled loss; its compiled backward failed with "ZeroTensors are immutable" in an
    `extern_kernels.mm(..., out=buf)`, which was put at u's line 13 with a bisect fix. The
    zero tangent is forward-mode AD's (hessian is jacfwd over jacrev): the failure is at the
    hessian call, with a reverse-mode fix."""
    s = Store(tmp_path, exit_code=1)
    s.user.write_text(PINN)
    s.compile("0/0", co_name="pde_loss", lineno=15)
    s.failure("0/0", stage="runtime", exc_type="RuntimeError",
              message="ZeroTensors are immutable. Please use the materialized zero tensor "
                      "obtained using .clone() if you want a mutable tensor. (kernel "
                      "extern_kernels.mm)", filename=str(s.user), lineno=12)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 17, d["user_frame"]
    assert "zero tangent of hessian's forward-mode AD" in d["reason"], d["reason"]
    assert "jacrev(jacrev(f))" in d["fix"], d["fix"]
