"""runtime_error (runtime) minified by compdiag: 4 of 6 nodes, 1-minimal; torch 2.13.0+cpu.

torch's error:
    expected Tensor() for op: torch.ops.aten.mkldnn_rnn_layer.default

Fails while the bug is present, exits 0 once fixed; repro_check.py is the full check.
"""
import torch
from torch import device


def f(l_self_modules_lstm_parameters_weight_ih_l0_, l_self_modules_lstm_parameters_weight_hh_l0_, l_self_modules_lstm_parameters_bias_ih_l0_, l_self_modules_lstm_parameters_bias_hh_l0_, l_self_modules_lstm_parameters_weight_ih_l1_, l_self_modules_lstm_parameters_weight_hh_l1_, l_self_modules_lstm_parameters_bias_ih_l1_, l_self_modules_lstm_parameters_bias_hh_l1_, l_window_):
    h_zeros = torch.zeros(2, 32, 48, dtype = torch.float32, device = device(type='cpu'))
    c_zeros = torch.zeros(2, 32, 48, dtype = torch.float32, device = device(type='cpu'))
    lstm = torch.lstm(l_window_, (h_zeros, c_zeros), [l_self_modules_lstm_parameters_weight_ih_l0_, l_self_modules_lstm_parameters_weight_hh_l0_, l_self_modules_lstm_parameters_bias_ih_l0_, l_self_modules_lstm_parameters_bias_hh_l0_, l_self_modules_lstm_parameters_weight_ih_l1_, l_self_modules_lstm_parameters_weight_hh_l1_, l_self_modules_lstm_parameters_bias_ih_l1_, l_self_modules_lstm_parameters_bias_hh_l1_], True, 2, 1.0, True, False, True)
    output = lstm[0]
    return (output,)


l_self_modules_lstm_parameters_weight_ih_l0_ = torch.tensor([[0.14416851]]).requires_grad_()
l_self_modules_lstm_parameters_weight_hh_l0_ = torch.tensor([[-0.110543415]]).requires_grad_()
l_self_modules_lstm_parameters_bias_ih_l0_ = torch.tensor([-0.106410064]).requires_grad_()
l_self_modules_lstm_parameters_bias_hh_l0_ = torch.tensor([0.08396618]).requires_grad_()
l_self_modules_lstm_parameters_weight_ih_l1_ = torch.tensor([[-0.04886749]]).requires_grad_()
l_self_modules_lstm_parameters_weight_hh_l1_ = torch.tensor([[0.06373112]]).requires_grad_()
l_self_modules_lstm_parameters_bias_ih_l1_ = torch.tensor([-0.047240473]).requires_grad_()
l_self_modules_lstm_parameters_bias_hh_l1_ = torch.tensor([-0.08372209]).requires_grad_()
l_window_ = torch.tensor([[[1.3511264]]])
torch.compile(f)(l_self_modules_lstm_parameters_weight_ih_l0_, l_self_modules_lstm_parameters_weight_hh_l0_, l_self_modules_lstm_parameters_bias_ih_l0_, l_self_modules_lstm_parameters_bias_hh_l0_, l_self_modules_lstm_parameters_weight_ih_l1_, l_self_modules_lstm_parameters_weight_hh_l1_, l_self_modules_lstm_parameters_bias_ih_l1_, l_self_modules_lstm_parameters_bias_hh_l1_, l_window_)
