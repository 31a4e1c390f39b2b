"""torch's words for a problem, said in the user's: one glossary for every kind's headline.

torch spells one idea several ways across its messages and versions ("Data dependent
operator", "Could not guard on data-dependent expression", "Pending unbacked symbols"),
while a user searches the docs, the forums and compdiag's own fixes by one term. Each entry
names the user's term and torch's phrasings of it. A headline (a diagnosis' reason) that uses
one of torch's phrasings without the term gets it: in torch's phrase's place where the term
reads as that phrase (`Data dependent operator` -> `Data-dependent operator`), else after it
in parentheses, so torch's own words stay searchable. Data, like guard_words' tables: a new
phrasing is one more pattern here, for every kind at once (Diagnosis applies it).

The patterns need a space inside the phrase (never `_`), or are an exception's CamelCase class
name: a headline also quotes code and config names (`capture_dynamic_output_shape_ops`, a
guard's source), which stay as written.
tests/principles_check.py checks every stored run: no headline says torch's phrasing alone."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """The user's `term`, torch's phrasings of it (`torch`), and how the headline says it:
    `replace` (the same words, spelled as the user does, in torch's phrase's place) or after
    torch's phrase as `(said)` (`said` holds the term)."""
    term: str
    torch: re.Pattern[str]
    replace: bool = False
    said: str = ""


GLOSSARY: tuple[Term, ...] = (
    # "Data dependent operator" (a graph break's type), "data dependent output", "data
    # dependent symnode" (fake-tensor and symbolic-shape errors): the user's term, hyphenated
    Term("data-dependent", re.compile(r"\b[Dd]ata dependent\b"), replace=True),
    # an unbacked symbol is a value known only at run time
    Term("data-dependent", re.compile(r"\bunbacked (?:symbols?|symints?|symfloats?|symbools?|"
                                      r"SymInts?|SymFloats?|SymBools?)\b"),
         said="data-dependent values"),
    # "Dynamic shape operator", "does not have a meta kernel that supports dynamic output
    # shapes": an op whose output's size depends on its input's values (nonzero, unique)
    Term("data-dependent", re.compile(r"\b(?:[Dd]ynamic shape operator|dynamic output shapes?)\b"),
         said="its output's size is data-dependent"),
    # the fake-tensor exceptions of a value read at trace time (`.item()`, `bool(t)`), by
    # their class names (CamelCase: never a config or code name written with `_`)
    Term("data-dependent", re.compile(r"\b(?:DataDependentOutputException|"
                                      r"GuardOnDataDependentSymNode)\b"),
         said="a data-dependent value"),
)


def in_user_words(headline: str) -> str:
    """`headline` with the user's term where it uses only torch's phrasing of it."""
    for entry in GLOSSARY:
        if entry.term in headline.lower():
            continue
        m = entry.torch.search(headline)
        if m is None:
            continue
        if entry.replace:
            said = entry.term
            if m.group(0)[:1].isupper():
                said = said[:1].upper() + said[1:]
            headline = headline[:m.start()] + said + headline[m.end():]
        else:
            headline = f"{headline[:m.end()]} ({entry.said or entry.term}){headline[m.end():]}"
    return headline


def only_torch_words(headline: str) -> list[str]:
    """The glossary's terms `headline` says only in torch's phrasing (empty: none)."""
    return [e.term for e in GLOSSARY
            if e.torch.search(headline) and e.term not in headline.lower()]
