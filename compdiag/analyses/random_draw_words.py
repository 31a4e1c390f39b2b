"""The fixes for a random draw Dynamo cannot trace, Python's `random` and NumPy's: draw with
torch inside the compiled function, or outside and pass a tensor (a Python float argument is
a constant to Dynamo). Kept apart from fixes.py, which holds the rules that pick them."""

# probes30a random_topp_sampler: `random.random()` in a compiled sampler; "call it outside
# and pass its result in" as a float still recompiled to the limit (floats are specialised),
# while a torch draw gave one graph.
RANDOM_DRAW_FIX = (
    "Python's `random` module cannot be traced. Draw the number with torch inside the "
    "function (`torch.rand(())`, `torch.rand_like(x)`: it stays in the graph, seeded by "
    "`torch.manual_seed`), or draw it outside and pass it in as a tensor "
    "(`torch.tensor(random.random())`); passed as a Python float it is a constant to Dynamo "
    "and each new value recompiles. Where the draw picks a branch (`a if random.random() < p "
    "else b`, teacher forcing), select with the tensor: `torch.where(torch.rand(()) < p, a, "
    "b)`, since an `if` on a tensor breaks the graph too.")


# probes35b mixup_numpy_beta_fullgraph: `np.random.beta(a, a)` for a mixup weight; the fix
# named torch.save/torch.fft as the torch functions to use
NUMPY_RANDOM_FIX = (
    "NumPy's random draws cannot be traced. Draw with torch inside the function (the same "
    "distribution from `torch.distributions`, `torch.distributions.Beta(a, a).sample()`, or "
    "`torch.rand`: seeded by `torch.manual_seed`), or draw outside and pass the value in as a "
    "tensor (`torch.tensor(np.random.beta(a, a))`): a Python float argument is a constant to "
    "Dynamo, and each new value recompiles.")
