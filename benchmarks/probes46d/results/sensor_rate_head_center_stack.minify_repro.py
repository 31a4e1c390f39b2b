"""accuracy (accuracy) minified by compdiag: 6 of 7 nodes, 1-minimal; torch 2.13.0+cpu.

compdiag's accuracy check at capture, on the whole graph (same(), fp64 reference):
    output 0: max abs error 2.56, max rel error 248 beyond tolerance 0.0001
      (torch._dynamo.utils.same rules)

Fails while the bug is present, exits 0 once fixed; repro_check.py is the full check.
"""
import torch


def f(l_self_parameters_baseline_, feats):
    log_rate = feats[(Ellipsis, -1)]
    exp = log_rate.exp()
    rate = exp + l_self_parameters_baseline_
    mean = rate.mean(dim = -1, keepdim = True)
    rel = rate - mean
    stack = torch.stack([rel, log_rate], dim = -1)
    return (stack,)


l_self_parameters_baseline_ = torch.tensor([-0.3266853, -0.4461165, -0.11180425, 0.21911973, -0.6834183, -0.8050489,
    0.32511994, -0.14410956, 1.0495406, -0.10133504, -0.20165598, 0.91708124,
    0.20825326, 0.48582885, -0.09176307, 0.30785462])
feats = torch.tensor([-0.46846068, -0.45143047, 0.052044492, 0.3196178, 0.2851032, 0.530336, 0.7177062,
    -0.96171635, -0.23189646, 0.75880426, -0.43976355, -0.7798234, -0.511431,
    0.70962286, 0.0812994, -0.4497185, 0.95820737, -0.68670833, 0.045196958,
    1.1469816, -0.13573867, -0.31007785, 0.50590837, -0.53407764, -0.5931208,
    0.24822679, 0.3839635, 0.6196463, -0.5790814, 0.2840436, 0.64179134, -0.4036355,
    0.28373584, 1.000141, -0.3674312, -0.018870175, 0.8461709, 0.57695127,
    -0.22022486, -0.17204663, -0.14191416, -1.1569337, -0.5059337, 0.057914585,
    0.44754148, 1.0314641, -0.10829438, 0.5971712, 0.13542722, -0.34168118,
    -0.0669561, 0.21422386, 1.2692356, -0.6377475, 0.16299623, -0.41812265,
    0.8708451, -0.2227396, -0.70258516, 0.1231523, 0.69768155, -0.49977675,
    0.5372074, 0.59664977]).reshape([2, 16, 2])
expected = f(l_self_parameters_baseline_, feats)
torch.testing.assert_close(torch.compile(f)(l_self_parameters_baseline_, feats), expected, rtol=0.0001, atol=0.0001, equal_nan=True)
