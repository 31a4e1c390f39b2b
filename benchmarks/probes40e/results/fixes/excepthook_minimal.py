import sys
def hook(t, v, tb):
    print("HOOK", t.__name__, flush=True)
sys.excepthook = hook
raise ValueError("boom")
