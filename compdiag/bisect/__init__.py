"""`compdiag bisect`: which backend, compiler subsystem and n-th application of it breaks a
program. The search follows torch._inductor.compiler_bisector (its BACKENDS, subsystems and
TORCH_BISECT_* protocol) and gives the same answer, with fewer and parallel probes, every file
kept in one temp dir that is removed at the end."""
