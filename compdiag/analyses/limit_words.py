"""The recompile limit in words: what happened to the function that hit it (it runs
uncompiled from then on, or, where the limit is an error, the program ended there) and what
to do about it."""

LIMIT_RUNS_ON = "and now runs uncompiled."
# the same limit made an error (fullgraph=True, fail_on_recompile_limit_hit, the
# "fail_on_recompile" stance): probes42a gpt2_inverse_layer_idx_regional_fullgraph said
# "now runs in eager" of a program the limit's error had ended
LIMIT_ENDED = ("and, as an error here (fullgraph=True or fail_on_recompile_limit_hit), ended "
               "the program.")
# probes35b multiscale_size_attr: a size drawn from a list of 12 per step; the dynamic-size
# fix crashed the compiled backward (torch 2.13), and a limit above 12 was the fix that held
LIMIT_FIX = ("{fn} hit torch._dynamo.config.recompile_limit " + LIMIT_RUNS_ON + " {fix} "
             "Raising `torch._dynamo.config.recompile_limit` only hides the cost, unless the "
             "value takes a fixed few values (sizes from a list, say): then a limit above "
             "their number compiles each once and reuses it.")
