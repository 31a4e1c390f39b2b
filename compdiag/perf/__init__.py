"""`compdiag perf`'s sessions: the program run and timed once per mode, the report built from
those runs and filed in the store (session.py). The statistics and the diagnosis of a timed run
are compdiag/analyses/perf.py's; the terminal view is compdiag/views/perf.py."""
