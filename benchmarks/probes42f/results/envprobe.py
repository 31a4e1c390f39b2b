import os
print("env", os.environ.get("TORCHINDUCTOR_CACHE_DIR"))
from torch._inductor.runtime.cache_dir_utils import cache_dir
print("dir", cache_dir())
