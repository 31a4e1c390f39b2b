"""The cache kind's words for a lookup that missed (analyses/diagnoses/cache.py): what a
miss means, after a reset, with the same key, beside another rank, or for a graph built in
another order."""

from __future__ import annotations

MISS_EXPLANATION = ("The cache key hashes the graph, its inputs' metadata, Inductor's config, "
                    "the torch build and the system; any component that differs makes a new "
                    "key, and the compile starts cold.")
RESET_EXPLANATION = ("torch._dynamo.reset() drops Dynamo's compiled code, not Inductor's caches: "
                     "the compile after it looks its graph up again, and a key component that "
                     "changed since the compile before it (a config, an input's dtype or "
                     "device, a global, deterministic algorithms) makes a new key.")
SAME_KEY_EXPLANATION = ("An earlier run compiled this graph with this very key, so the entry "
                        "was written to another cache directory, was evicted, or was not "
                        "copied with the cache (keys are local to TORCHINDUCTOR_CACHE_DIR).")
PEER_RANK_EXPLANATION = ("The ranks of a job compile the same graphs at about the same time, "
                         "each into the cache directory they share; a rank looks its key up "
                         "before the other has written the entry, so both miss and both "
                         "compile.")
PEER_RANK_FIX = ("a warm start of the job (the same cache directory, kept) hits on every "
                 "rank.")
NOT_STORED_EXPLANATION = ("The same compile found the other cache's entry that the earlier "
                          "run wrote, so both runs used one cache directory: the earlier run "
                          "looked this key up, missed, compiled, and did not store an entry for "
                          "it (torch stores some compiled graphs in one cache only).")
NOT_STORED_FIX = ("the compile still loaded its kernels from the cache that hit; a warm start "
                  "of this graph pays the part that cache does not hold.")

# The same ops in another order (analyses/caches.py `reordered`): code that iterates an
# unordered container builds the graph in the order it yields (probes36d
# feature_set_cache_miss: `for name in FEATURES`, a set of strings, whose order follows each
# process's hash seed, so every warm start missed the FX graph cache).
ORDER_EXPLANATION = ("The graph holds the same operations as the earlier compile's, in another "
                     "order: the code traced them in the order a container yielded its items, "
                     "and that order changed between the processes. A set of strings (and a "
                     "dict built from one) is ordered by each process's hash seed "
                     "(PYTHONHASHSEED), so every start traces another graph and misses the "
                     "cache.")
# The same input tensors in another order (unordered_loops.ordering_set): the program made
# them in the order a set yielded (probes46b adamw_decay_set_groups_cache: an optimizer's
# parameter groups from sets of names; every warm start missed, "expected to miss").
INPUT_ORDER_EXPLANATION = ("The graph's inputs are the same tensors as the earlier compile's, "
                           "in another order: the program built them (an optimizer's parameter "
                           "groups, a list of tensors) in the order a set yielded its items, "
                           "and a set of strings is ordered by each process's hash seed "
                           "(PYTHONHASHSEED), so every start passes them in another order and "
                           "misses the cache.")
ORDER_FIX = ("Iterate in a fixed order: `sorted({name})` in place of `{name}` (or keep the "
             "items in a list or tuple); setting PYTHONHASHSEED for every start also works.")


# A miss in a `compdiag perf` run: its capture compiles in a fresh cache directory on purpose
# (compdiag/perf/session.py), so a miss against an earlier run's key is compdiag's own doing.
PERF_FRESH_EXPLANATION = ("compdiag perf compiles in a cache directory of its own, fresh for "
                          "each mode, on purpose: a hit would skip the compile whose facts "
                          "(fusion, fallbacks, autotuning) it measures")
PERF_FRESH_FIX = "your own runs keep using their cache directory."
BYPASS_EXPLANATION = ("Inductor could not build a cache key for this graph, so it neither "
                      "looks the graph up nor stores it: every process compiles it from "
                      "scratch, warm starts included.")
# AOTAutograd's cache bypassed while Inductor's FX graph cache looked the same compile's
# graphs up (probes29a scaled_gelu_fn_ok: `fxgraph_cache_hit: 2`, `autograd_cache_bypass: 1`):
# a warm start traces again, and Inductor's compile of each graph is still cached. Said as
# what it costs, not as "compiles from scratch", and information with its fix: torch's
# default for these constructs (pytorch#192555), measured as no gain on a warm start once
# allowed, and judged a false problem on correct programs twice, blind (probes29a
# scaled_gelu_fn_ok, probes36c afn_setup_context_ok).
AOT_ONLY_EXPLANATION = ("Only AOTAutograd's cache refused this graph; Inductor's FX graph cache "
                        "still looked up its forward and backward graphs (served or stored "
                        "them), so every process, warm starts included, traces the graph "
                        "through AOTAutograd again (the joint graph, its partition); "
                        "Inductor's lowering and code generation are still served.")
# torch.compiler.save_cache_artifacts() called before the compiled calls (capture's
# compdiag:cache_artifacts record; probes42f mega_cache_save_before_call, blind).
SAVE_EARLY_REASON = ("torch.compiler.save_cache_artifacts() at line {line} ran before anything "
                     "was compiled and saved nothing (it returned None); the run compiled "
                     "{compiles} after it")
SAVE_EARLY_EXPLANATION = (
    "torch.compile compiles lazily, at the first call of the compiled function (a training "
    "graph's backward at its first backward), so a save made before those calls has nothing "
    "to serialise. A later launch that loads the artifacts finds none and compiles cold, "
    "missing keys this run stored in its own cache directory.")
SAVE_EARLY_FIX = ("Call torch.compiler.save_cache_artifacts() after the calls that compile "
                  "every graph (a warm-up step, its backward included), and write its bytes "
                  "(`artifacts[0]`) where the next launch passes them to "
                  "torch.compiler.load_cache_artifacts().")
SAVE_EARLY_WHY = "missed because the run's cache artifacts were saved before anything compiled"
