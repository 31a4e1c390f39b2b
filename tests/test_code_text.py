"""formats/code_text.py: searches for a statement in the user's code read its code only."""

from compdiag.formats.code_text import code_only_lines


def test_strings_and_comments_are_blanked_line_for_line():
    """set16/freezing_stale_weights.py: its docstring quotes `torch._inductor.config.freezing
    = True`, and the cache kind pointed at that docstring line (4) as where the program set
    freezing, not at the assignment (14)."""
    text = ('"""A service.\n'
            'with `torch._inductor.config.freezing = True` quoted\n'
            '"""\n'
            'import torch\n'
            'torch._inductor.config.freezing = True  # freezing = False\n'
            's = "freezing = 1"\n')
    lines = code_only_lines(text)
    assert len(lines) == len(text.splitlines())
    assert [i for i, line in enumerate(lines, 1) if "freezing =" in line] == [5]
    assert lines[4].startswith("torch._inductor.config.freezing = True")
    assert "False" not in lines[4] and "1" not in lines[5]


def test_a_file_that_does_not_tokenize_is_read_as_it_is():
    text = 'x = 1\ny = """never closed\n'
    assert code_only_lines(text) == text.splitlines()


def test_the_condition_a_branch_tests():
    """probes33f observer_enabled_flag: `if self.observer_on:` (a uint8 buffer) broke with
    torch's bare "Data-dependent branching"; the reason names the condition."""
    from compdiag.formats.code_text import branch_condition

    assert branch_condition("if self.observer_on:") == "self.observer_on"
    assert branch_condition("elif loss > cap and step:") == "loss > cap and step"
    assert branch_condition("while err.max() > tol:") == "err.max() > tol"
    assert branch_condition("x = 1 if a else 2") is None
    assert branch_condition("if x:  # comment") is None  # a line as torch gives it has none


def test_a_break_inside_a_descriptors_getter_names_the_attribute_the_line_reads():
    """probes36e cached_property_attn_cfg: `self.cfg.scale`, a functools.cached_property, broke
    the graph inside its getter (an RLock on Python 3.11) and the headline said "calling
    `k.transpose(...)`", the line's only call, which is not what ran the getter. Inside a
    `__get__` the clause names the one attribute the line reads, and what the getter is."""
    from compdiag.formats.code_text import attribute_read, call_clause

    line = "att = (q @ k.transpose(-2, -1)) * self.cfg.scale"
    assert attribute_read(line) == "self.cfg.scale"
    assert call_clause(line, "Unsupported context manager", into="__get__",
                       home="/usr/lib/python3.11/functools.py") == \
        ", reading `self.cfg.scale` (a functools.cached_property)"
    assert call_clause(line, "x, reading `self.cfg.scale`", into="__get__") == ""
    assert attribute_read("y = a.b + c.d") is None  # two reads: which one ran the getter?
    assert call_clause(line, "Unsupported context manager") == ", calling `k.transpose(...)`"
