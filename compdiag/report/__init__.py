"""`compdiag report`: one archive of a run for a PyTorch issue (bundle.py), with the machine's
and the run's environment (env.py)."""
