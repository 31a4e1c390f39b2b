"""compdiag: record every torch.compile stage into one SQLite store and explain it."""

__version__ = "0.1.0"
