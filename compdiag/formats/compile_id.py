"""One compile's identity: parsed once, stored, sorted and printed by the functions here.

torch names a compile `frame/frame_compile` ('0/1'), with `_attempt` for a restart of the same
compile ('0/1_2') and a `!ca` prefix for a compile of compiled autograd's graph ('!0/0/0', or
'!0' for compiled autograd's own trace): torch/_guards.py CompileId.__str__ and TraceId.__str__
(torch 2.11 to 2.15 print these forms). torch also starts counting again after
`torch._dynamo.reset()`, so one process can compile two different things as '0/0'. compdiag
adds the generation a reset advances: the stored key is torch's text for generation 0 (so
stores, commands and tlparse agree on every run without a reset) and torch's text plus
'@generation' after a reset ('0/0@1'); a person reads that as '0/0 (after reset 1)'.

Every table keyed by compile id holds this key, so facts of two generations never merge."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any

from compdiag.formats import lazy_re

_TEXT = lazy_re.compile(
    r"^\[?(?:!(?P<ca>\d+)(?:/(?P<caf>\d+)/(?P<cafc>\d+))?|(?P<frame>\d+)/(?P<fc>\d+))"
    r"(?:_(?P<attempt>\d+))?\]?"
    r"(?:@(?P<gen>\d+)|\s*\(after reset (?P<reset>\d+)\))?$")
# How a reset's generation reads in prose (display()) and in the key (str()).
AFTER_RESET = "after reset"
_LAST = 1 << 30  # sorts a missing or foreign id after every compile


def _int(value: Any) -> int | None:
    """An int that is not a bool (JSON true/false must not become part of an id)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class CompileId:
    """frame, frame_compile: torch's counters (None only for compiled autograd's own trace,
    '!0'); attempt: the restart of one compile; generation: how many `torch._dynamo.reset()`s
    that separated compiles came before it in the process; compiled_autograd: the '!N' of a
    compiled-autograd compile."""

    frame: int | None
    frame_compile: int | None
    attempt: int = 0
    generation: int = 0
    compiled_autograd: int | None = None

    # -- parsing ---------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> CompileId:
        """Every form torch prints, with compdiag's generation ('@1' or ' (after reset 1)')
        and the log prefix's brackets ('[0/0_1]'); ValueError on anything else."""
        m = _TEXT.match(text.strip()) if isinstance(text, str) else None
        if m is None:
            raise ValueError(f"not a compile id: {text!r}")
        g = {k: (int(v) if v is not None else None) for k, v in m.groupdict().items()}
        ca = g["ca"]
        return cls(frame=g["caf"] if ca is not None else g["frame"],
                   frame_compile=g["cafc"] if ca is not None else g["fc"],
                   attempt=g["attempt"] or 0, generation=g["gen"] or g["reset"] or 0,
                   compiled_autograd=ca)

    @classmethod
    def of(cls, text: str | None) -> CompileId | None:
        """parse(), None for None or text that is not a compile id. A run names a few ids
        thousands of times (every record of a capture): each text is parsed once."""
        if not text:
            return None
        if cls is CompileId and type(text) is str:
            return _of_text(text)
        try:
            return cls.parse(text)
        except ValueError:
            return None

    @classmethod
    def from_trace(cls, metadata: dict[str, Any], generation: int = 0) -> CompileId | None:
        """A structured-trace envelope's id (frame_id, frame_compile_id, attempt,
        compiled_autograd_id); None without both frame counters."""
        frame, fc = _int(metadata.get("frame_id")), _int(metadata.get("frame_compile_id"))
        if frame is None or fc is None:
            return None
        return cls(frame=frame, frame_compile=fc, attempt=_int(metadata.get("attempt")) or 0,
                   generation=generation,
                   compiled_autograd=_int(metadata.get("compiled_autograd_id")))

    # -- printing --------------------------------------------------------------------------
    def torch_id(self) -> str:
        """torch's own text, no generation: what TORCH_LOGS and tlparse print."""
        if self.compiled_autograd is not None:
            text = f"!{self.compiled_autograd}"
            if self.frame is not None:
                text += f"/{self.frame}/{self.frame_compile}"
        else:
            text = f"{self.frame}/{self.frame_compile}"
        return text + (f"_{self.attempt}" if self.attempt else "")

    def __str__(self) -> str:
        """The stored key: torch's text, '@generation' after a reset."""
        return self.torch_id() + (f"@{self.generation}" if self.generation else "")

    def display(self) -> str:
        """For a person: '0/0', '0/0 (after reset 1)'."""
        if not self.generation:
            return self.torch_id()
        return f"{self.torch_id()} ({AFTER_RESET} {self.generation})"

    # -- relations -------------------------------------------------------------------------
    def sort_key(self) -> tuple:
        """Generations in order, then compiled autograd's after the frames', frames, frame
        compiles ('0/10' after '0/9') and attempts after their first try."""
        return (self.generation, self.compiled_autograd is not None,
                self.compiled_autograd or 0, -1 if self.frame is None else self.frame,
                -1 if self.frame_compile is None else self.frame_compile, self.attempt)

    def first_attempt(self) -> CompileId:
        """The same compile's first try: '0/1' of '0/1_2', '0/1@1' of '0/1_2@1'."""
        return replace(self, attempt=0)

    def with_generation(self, generation: int) -> CompileId:
        return replace(self, generation=generation)

    def frame_key(self) -> str:
        """The compiled frame, whatever its compile count: '0' of '0/3', '0@1' after a
        reset, '!0/1' of compiled autograd's '!0/1/2'."""
        ca = f"!{self.compiled_autograd}/" if self.compiled_autograd is not None else ""
        return f"{ca}{self.frame}" + (f"@{self.generation}" if self.generation else "")


# -- the same, on stored text (rows carry the key as text) -----------------------------------
def sort_key(text: str | None) -> tuple:
    """Sorts stored compile ids in compile order; None and foreign text last."""
    cid = CompileId.of(text)
    return cid.sort_key() if cid is not None else (_LAST, text or "")


def display(text: str | None) -> str:
    """A stored compile id for a person ('0/0 (after reset 1)'); other text as it is."""
    cid = CompileId.of(text)
    return cid.display() if cid is not None else (text or "")


def first_attempt(text: str | None) -> str | None:
    """The stored key of the same compile's first try; other text as it is."""
    cid = CompileId.of(text)
    return str(cid.first_attempt()) if cid is not None else text


def frame_of(text: str | None) -> str | None:
    """The stored key's compiled frame (CompileId.frame_key); None for foreign text."""
    cid = CompileId.of(text)
    return cid.frame_key() if cid is not None else None


def generation(text: str | None) -> int:
    cid = CompileId.of(text)
    return cid.generation if cid is not None else 0


@functools.lru_cache(maxsize=4096)
def _of_text(text: str) -> CompileId | None:
    """CompileId.of a text, kept (a CompileId is frozen: one value serves every caller)."""
    try:
        return CompileId.parse(text)
    except ValueError:
        return None
