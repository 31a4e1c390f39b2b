"""A guard's source as the user's code spells it: `L['x'].size()[0]` -> `x.shape[0]`.

Dynamo names what it guards by where it found it: `L['name']` a local of the compiled frame,
`G['name']` a global, then the path inside it in the module system's own terms
(`._modules['0']._parameters['weight']`, `.size()[0]`). That is torch's spelling, not the
user's: a headline that says `recompiled 8 times on L['cfg']` makes the user translate it
back to `cfg`. Every diagnosis' reason, explanation and fix goes through `in_user_spelling`
(analyses/diagnosis.py); torch's own message (details.torch_message) keeps torch's spelling,
verbatim. Capture names a graph's inputs the same way (capture/grad_accuracy.py).

Only the chain from a root `L[...]`/`G[...]` through the steps below is rewritten; a name
torch invented (`L['___stack0']`, a resume function's stack value; `G['__import_torch']`)
and any step not listed stay as torch wrote them."""

from __future__ import annotations

import re

from compdiag.formats import lazy_re

# A root with a user's name (never torch's ___/__ names), then the steps of its path.
_ROOT = r"(?<![\w.])[LG]\['(?!__)([A-Za-z_][A-Za-z0-9_]*)'\]"
_STEP = (r"(?:\._(?:modules|parameters|buffers)\['[^'\]]+'\]|\.(?:size|stride)\(\)\[\d+\]"
         r"|\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\]|\['[^'\]]+'\])")
_CHAIN = lazy_re.compile(_ROOT + "(" + _STEP + "*)")
# A bare local (torch's recompile reasons write `self._modules['drop'].p`, no `L[...]`) with a
# module-system step right after it: only then is it a guard source to rewrite.
_BARE_CHAIN = lazy_re.compile(r"(?<![\w.'\]])([A-Za-z_]\w*)((?:\._(?:modules|parameters|buffers)"
                              r"\['[^'\]]+'\])" + _STEP + "*)")
_MODULE_STEP = lazy_re.compile(r"\._(?:modules|parameters|buffers)\['([^'\]]+)'\]")
_SIZE_STEP = lazy_re.compile(r"\.size\(\)\[(\d+)\]")
_STRIDE_STEP = lazy_re.compile(r"\.stride\(\)\[(\d+)\]")


def _step(m: re.Match[str]) -> str:
    """`._modules['lin']` -> `.lin`; `._modules['0']` (a Sequential's child) -> `[0]`."""
    key = m.group(1)
    if key.isdigit():
        return f"[{key}]"
    return f".{key}" if key.isidentifier() else f"._modules['{key}']"


# A global of the program's own script reached through its module (a hook or helper of
# `__main__` traced from torch's frame): `G['__import___main__'].calls` is `calls`.
_MAIN_GLOBAL = lazy_re.compile(r"G\['__import___main__'\]\.([A-Za-z_]\w*)")


def main_global(text: str) -> str:
    """`G['__import___main__'].name` -> `G['name']`: the script's global as a global."""
    return _MAIN_GLOBAL.sub(r"G['\1']", text) if "__import___main__" in text else text


_BARE_ROOT = lazy_re.compile(r"^([A-Za-z_]\w*)(?=$|[.\[])")


def rooted(name: str) -> str:
    """A source torch writes from a bare local (`x`, `args[0]`, `self._modules['fc'].weight`,
    as its guard-failure messages do) as the guard tree spells it (`L['x']`, `L['args'][0]`,
    `L['self']._modules['fc'].weight`): only the root is a frame's local, the path after it
    stays as torch wrote it."""
    if name.startswith(("L[", "G[")):
        return name
    return _BARE_ROOT.sub(lambda m: f"L['{m.group(1)}']", name, count=1)


# torch spells a dict's N-th key `list(dict.keys(d))[N]` (an optimizer's state per parameter)
_KEY_AT = lazy_re.compile(r"list\(dict\.keys\(([^()]*(?:\([^()]*\)[^()]*)*)\)\)\[(\d+)\]")


# the whole guard source the key at one position of a dict: `list(dict.keys(d))[N]`
_KEY_POSITION = lazy_re.compile(r"^list\(dict\.keys\((.+)\)\)\[(\d+)\]$")


def key_position(source: str | None) -> tuple[str, str] | None:
    """(the dict, the position) of a guard on which key sits at a position of a dict the
    compiled code iterated; None for any other source."""
    m = _KEY_POSITION.match(source or "")
    return (m.group(1), m.group(2)) if m else None


def _key_at(m: re.Match[str]) -> str:
    """`<key N>` inside a subscript of the same dict (`d[<key 0>]`, an optimizer's state per
    parameter); `<key N of d>` elsewhere, where the dict is not beside it (a guard on the key
    order of a dict the code iterated, probes40a multitask_loss_dict_order)."""
    box = m.group(1)
    if m.string[:m.start()].endswith(box + "["):
        return f"<key {m.group(2)}>"
    return f"<key {m.group(2)} of {in_user_spelling(box)}>"


def in_user_spelling(text: str) -> str:
    """`text` with every guard source torch spelled (`L['self']._modules['fc'].weight`) as the
    user's code spells it (`self.fc.weight`); a dict's N-th key as `<key N>`."""
    while "list(dict.keys(" in text:
        shorter = _KEY_AT.sub(_key_at, text)
        if shorter == text:
            break
        text = shorter
    if "['" not in text:
        return text
    text = main_global(text)

    def one(m: re.Match[str]) -> str:
        path = _MODULE_STEP.sub(_step, m.group(2))
        path = _SIZE_STEP.sub(r".shape[\1]", path)
        path = _STRIDE_STEP.sub(r".stride(\1)", path)
        return m.group(1) + path

    text = _CHAIN.sub(one, text)
    return _BARE_CHAIN.sub(one, text) if "._" in text else text


def module_path(path: str) -> str:
    """A dotted submodule path as code reaches it: `1` -> `[1]`, `blocks.0.mlp` ->
    `blocks[0].mlp` (an nn.Sequential's or ModuleList's items are indexed)."""
    out = ""
    for part in path.split("."):
        out += f"[{part}]" if part.isdigit() else f".{part}"
    return out.lstrip(".")


# a field of the compiled function's argument (`L['batch'].mask`, `batch.mask`,
# `inputs['mask']`), not of `self` (a module attribute) or a global (`G[...]`)
INPUT_FIELD = lazy_re.compile(r"^(?:L\['(?!self')\w+'\]|(?!self\b|[GL]\[)[A-Za-z_]\w*)"
                         r"(?:\.\w+|\[[^\]]+\])")


def input_field(source: str | None) -> bool:
    """Whether a guard's source is a field or item of the compiled function's argument."""
    return INPUT_FIELD.match(source or "") is not None


def nested_input(source: str | None) -> bool:
    """Whether a guard's source is an item deep in a nested argument (`tree[0][0]`)."""
    return (source or "").count("[") >= 2 and input_field(source)
