import torch._inductor.config
torch._inductor.config.pattern_matcher = False
exec(open("/work/wt35b/benchmarks/probes35b/mixup_randperm_pairs.py").read())
