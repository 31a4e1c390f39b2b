def boom():
    raise ValueError("boom from user code")


print("about to raise", flush=True)
boom()
