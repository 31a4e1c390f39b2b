"""Leaf helpers that capture, ingest, analyses and minify all need, importing nothing of
compdiag above them (and no torch until a codec function runs): what counts as the user's
code and traceback frames (user_code), the failing-graph codec (failure_graph), what "the same
failure" means (signature) and the accuracy tolerances (tolerances)."""
