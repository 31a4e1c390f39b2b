"""Recompile fixes for a guard on a model parameter: its requires_grad pattern (gradual
unfreezing) or its layout (a tensor with other strides put in its place)."""

# probes42f assign_transposed_ckpt_recompile: `load_state_dict(sd, assign=True)` with
# transposed weights; torch's own hint (force_parameter_static_shapes) is about sizes
PARAMETER_STRIDE_FIX = ("The parameter's layout changed between calls: a tensor put in its "
                        "place (`load_state_dict(..., assign=True)`, a `.t()` or other view "
                        "assigned to it) has other strides. Load into the existing "
                        "parameters (no `assign=True`: values are copied into their layout) "
                        "or make the new tensors `.contiguous()` before they replace them.")
PARAMETER_REQUIRES_GRAD_FIX = (
    "Each pattern of `requires_grad` over the model's parameters is a graph of its own: "
    "freezing or unfreezing layers one step at a time (gradual unfreezing) compiles once per "
    "step. Keep `requires_grad` as it is and choose what trains with the optimizer instead "
    "(create it with the trainable parameters, `optimizer.add_param_group({{'params': "
    "block.parameters()}})` when a block joins), or unfreeze in a few large steps.")
