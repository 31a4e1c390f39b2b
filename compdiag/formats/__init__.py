"""Leaf helpers that capture, ingest, analyses and minify all need, importing nothing of
compdiag above them: what counts as the user's code, traceback frames, and (later) the
failure-graph codec and tolerances."""
