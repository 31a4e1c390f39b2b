"""A program that would not start is refused in one line before a run is recorded
(capture/preflight.py)."""

from __future__ import annotations

import os

import pytest

from compdiag.capture.preflight import WontStart, check_script


def test_a_console_script_given_as_the_script_names_its_module(tmp_path, monkeypatch):
    """probes45d: `compdiag run -- torchrun --nproc-per-node 2 x.py` said only "can't open
    file 'torchrun'"; torchrun is pip's console script for torch.distributed.run, which
    `-m torch.distributed.run` runs the same way (the README's form)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "launchit"
    script.write_text("#!/usr/bin/python3\n# -*- coding: utf-8 -*-\nimport re\nimport sys\n"
                      "from torch.distributed.run import main\nif __name__ == '__main__':\n"
                      "    sys.exit(main())\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(WontStart) as err:
        check_script("launchit")
    assert err.value.code == 2
    assert "`-m torch.distributed.run` in its place" in str(err.value)
    with pytest.raises(WontStart) as err:
        check_script("no_such_thing.py")
    assert str(err.value) == "can't open file 'no_such_thing.py': no such file"
