"""Prints what a program can see of how it was started, as JSON on stdout."""
import json
import os
import sys

data = {
    "argv": sys.argv,
    "name": __name__,
    "file": globals().get("__file__"),
    "spec": getattr(globals().get("__spec__"), "name", None),
    "cwd": os.getcwd(),
    "path0": sys.path[0],
    "main_is_me": sys.modules["__main__"].__dict__ is globals(),
    "stdin": sys.stdin.read(),
    "stdout_isatty": sys.stdout.isatty(),
}
print(json.dumps(data))
print("probe stderr line", file=sys.stderr)
sys.exit(int(os.environ.get("PROBE_EXIT", "0")))
