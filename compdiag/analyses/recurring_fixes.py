"""The documented fix for a value that changes at every call (RECURRING_FIXES): the first rule
whose words all occur in the guard's text or the guarded line. Split from recompile_rules.py,
which keeps the words for every other guard category; a new value rule is one entry here."""

from __future__ import annotations

from compdiag.analyses.rules import Words, every, first, one_of

# The fix torch documents for a value that changes every step ("Dealing with Recompilations",
# docs.pytorch.org/docs/stable/compile/programming_model.recompilation.html; torch's own HINT
# in the guard text): first rule whose words all occur in the guard text or the guarded line.
RECURRING_FIXES: tuple[tuple[Words, str], ...] = (
    # probes38j triplet_num_hard_curriculum: a module the compiled function reaches as a global
    # (`G['crit'].num_hard`): torch's flag applied left all 4 recompiles
    (every("integer attributes of the nn.Module", "G['"),
     "{src} is an int attribute of a module the compiled function reads as a global, and "
     "torch treats a module's int attributes as constants: torch's hint "
     "(`allow_unspec_int_on_nn_module = True`) covers a module that is itself compiled, not "
     "one reached this way. Pass the value to the compiled function as an argument (a Python "
     "int argument is made dynamic after one recompile), or compile the module itself "
     "(`torch.compile(module)`) with that flag set."),
    # probes44e hf_llama_early_exit_depth_sweep: `model.config.num_hidden_layers = k`, which
    # the library slices its layers with: the flag left all 5 recompiles
    (every("integer attributes of the nn.Module", "].config."),
     "{src} is a field of a config object the model holds, not an attribute of the module, "
     "so torch's flag for a module's ints (`allow_unspec_int_on_nn_module`) does not reach "
     "it; and library code reads it to choose what runs (how many layers, which branch), "
     "which no tensor or dynamic int can stand for: each value needs a graph of its own. "
     "With a few values that is a compile each, once (keep their number under "
     "`torch._dynamo.config.recompile_limit`); otherwise compile the repeated part instead "
     "(each layer: `layer.compile()`), so the loop over the value runs in eager Python."),
    (every("integer attributes of the nn.Module"),
     "torch.compile treats int attributes of an nn.Module as constants, so {src} changing "
     "every call recompiles every call: set "
     "`torch.compiler.config.allow_unspec_int_on_nn_module = True` (torch's hint), or keep "
     "the counter in a tensor buffer (`self.register_buffer('step', torch.zeros((), "
     "dtype=torch.long))`) or outside the module."),
    # probes35a onecycle_betas_recompile: OneCycleLR writes a new momentum into `betas` every
    # step (cycle_momentum=True by default); tensor betas still recompiled 8 times
    (every("param_groups", "betas"),
     "{src} is the momentum an LR scheduler cycles (OneCycleLR and CyclicLR do by default, "
     "`cycle_momentum=True`): it writes a new Python float into the param group every step, "
     "so tensor betas do not help. Pass `cycle_momentum=False` to the scheduler, or keep the "
     "value fixed while the compiled step runs."),
    (every("param_groups", "momentum"),
     "{src} is the momentum an LR scheduler cycles (OneCycleLR and CyclicLR do by default, "
     "`cycle_momentum=True`): it writes a new Python float into the param group every step. "
     "Pass `cycle_momentum=False` to the scheduler, or keep the value fixed while the "
     "compiled step runs."),
    (every("param_groups", "lr"),
     "The optimizer's learning rate is a Python float the LR scheduler changes every step: "
     "create the optimizer with a tensor learning rate, `lr=torch.tensor(0.01)`, so that the "
     "scheduler updates the tensor in place (torch's tutorial 'compiling the optimizer with "
     "an LR scheduler')."),
    # probes29c scale_jitter_aug: the tensor fix raised TypeError (scale_factor takes a float);
    # before the slice rule: the op's argument decides, not a slice elsewhere on its line
    # (probes38f resample_sr_scale_recompile: `wave[:, None]` in the same call)
    (every("scale_factor"),
     "{src} is an op's scale_factor (`F.interpolate`), which the op reads as a concrete "
     "float, so Dynamo guards on its exact value; a tensor cannot stand for it (the op raises "
     "TypeError). Compute the output size from it outside the compiled function and pass "
     "ints, `size=(h, w)`: sizes become dynamic after one recompile. Or keep to a few fixed "
     "values."),
    # a Python container sliced by the value (`self.blocks[:n_blocks]`, stochastic depth):
    # which modules run is the graph's structure, so a tensor cannot stand for it (probes28b
    # layer_drop_depth: the tensor fix made Dynamo skip the whole frame)
    (one_of("[:", "list(self._modules.values())[idx]"),
     "{src} slices a Python container (`[:...]`): which modules or items run depends on it, "
     "so Dynamo specialises on it and each new value is a graph of its own, compiled once and "
     "reused when the value comes back; a tensor cannot stand for it (Dynamo then skips the "
     "frame). Keep to a few fixed values, or compile each block (`torch.compile(block)`) so "
     "the loop over them runs in eager."),
    # a module picked by the value (`self.heads[task]` of a ModuleDict): probes29a
    # multitask_heads, whose fix called a lookup by string a slice
    (every("nn/modules/container.py"),
     "{src} picks which module runs (a lookup in a module container): each module is other "
     "code with other weights, so Dynamo specialises on {src} and each new value is a graph "
     "of its own, compiled once and reused when the value comes back; a tensor cannot stand "
     "for it. Compile the part every value shares (`shared.compile()` on that submodule, "
     "a shared encoder say) and run the picked module in eager."),
    # probes39b spectral_poisson_rfftfreq_sizes (its `torch.arange(` was taken for `range(`)
    (one_of("fftfreq("), "{src} is the length given to torch.fft.rfftfreq/fftfreq, which need "
     "its exact value: each new value compiles again (automatic dynamic shapes do not take "
     "over). Build the frequencies with ops that keep it symbolic, `torch.arange({src} // 2 + "
     "1) / (d * {src})` for rfftfreq, or keep to a few fixed lengths."),
    (one_of(" range(", "(range(", "[range(", "=range("),
     "{src} sets a Python loop's trip count (`range(...)`), so Dynamo unrolls the loop and "
     "specialises on the count: every new value is a new graph. Keep the count fixed, move "
     "the loop out of the compiled function, or write it with tensor ops."),
    # probes30d act_stats_hook_item: `name == 'relu3'`, a closure's string, got the tensor fix
    (one_of("== '", '== "'),
     "{src} is a Python string (a name, a key) that differs between calls, and Dynamo guards "
     "on its exact value: each value is a graph of its own, compiled once; a tensor cannot "
     "stand for a string. Use the string in the eager code around the compiled call (where it "
     "picks what to record or which branch runs), or raise "
     "`torch._dynamo.config.recompile_limit` above the number of values."),
    # probes33f act_quant_float_scale: `torch.tensor(scale)` with the int zero point `0`
    # picked the overload that reads the scale back as a number (a break every call)
    (one_of("fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine"),
     "{src} is the quantization scale, a Python float Dynamo guards on exactly. Pass both the "
     "scale and the zero point as tensors (a float32 scale and an int32 zero point, kept as "
     "buffers and updated in place with `.copy_()`): that selects fake_quantize's tensor "
     "overload, one graph for every value; a tensor scale with a Python int zero point still "
     "reads the scale out (a graph break every call)."),
    # probes46a vit_droppath_regional_bernoulli: timm's DropPath, `bernoulli_(keep_prob)`
    # with a drop rate per block; `torch.tensor(keep_prob)` made inside still recompiled
    (one_of("bernoulli_(", ".bernoulli("),
     "{src} reaches `bernoulli_`'s probability, which the op takes only as a Python float, so "
     "Dynamo specialises the graph on its value: each new value compiles again. Draw the mask "
     "by a comparison, `torch.rand(shape, device=x.device) < keep_prob` (divide out of place, "
     "`x * mask / keep_prob`): a comparison keeps the float symbolic, one graph for every "
     "value."),
    (every(), "{src} is a Python number that changes every call and Dynamo guards on its exact "
         "value: wrap it in a tensor (`torch.tensor(value)`, torch's 'Wrapping Constants with "
         "Tensors'), so it is an input of one graph."),
)


def recurring_fix(source: str, text: str) -> str:
    """The documented fix for a value that changes every step (RECURRING_FIXES)."""
    return str(first(RECURRING_FIXES, text)).format(src=source)
