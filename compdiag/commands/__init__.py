"""The subcommands of `compdiag`, one module each: argument registration and orchestration.

Each module defines HELP (its line in `compdiag --help`) and register(parser), which adds its
arguments and sets `func` (args -> exit status). compdiag/cli.py lists the modules, imports
only the one invoked and dispatches; a command never imports the cli. What they share (--store,
the default store, one JSON document on stdout, the one-line error) is in _common.py; what they
print is rendered by compdiag/views/."""
