"""What a file we do not read looks like, when it can be told: a table of recognisable
signatures of hand histories and other files poki has no reader for, so that `poki
replay` can say "looks like a Microgaming hand history (XML): no reader for it" rather than
pass over the file; pure functions, no I/O.

A file is looked up here only after every reader (connectors.logs.sources) has said it
is none of its own, so a room that gains a reader is read and its row here is never
reached. The table is (what it looks like, how a file's first part shows it): a
pattern searched in the first 4 KiB of its text, as connectors.logs.rooms.decode reads
it, or the file's suffix.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Signature", "SIGNATURES", "looks_like"]


@dataclass(frozen=True, slots=True)
class Signature:
    """A kind of file we do not read, and how to know it."""

    what: str  # "a Microgaming hand history (XML)"
    pattern: re.Pattern[str] | None = None  # searched in the file's first 4 KiB
    suffixes: tuple[str, ...] = ()  # or the file's suffix, lower case


_M = re.MULTILINE
SIGNATURES: tuple[Signature, ...] = (
    Signature("FPDB's expected import results for the file beside it (.hp, .hands, .gt)",
              suffixes=(".hp", ".hands", ".gt")),
    Signature("a PokerStars tournament summary", re.compile(r"^\ufeff?PokerStars Tournament #\d+", _M)),
    Signature("a Full Tilt Poker tournament summary", re.compile(r"^\ufeff?Full Tilt Poker Tournament Summary", _M)),
    Signature("a Microgaming hand history (XML)", re.compile(r"<Game hhversion=")),
    Signature("an iPoker tournament summary (XML)", re.compile(r"<tournament\b[^>]*\bcode=")),
    Signature("a PokerTracker or Hold'em Manager database export", suffixes=(".pgdump", ".backup", ".hmdb")),
    Signature("an archive (unpack it first)", suffixes=(".zip", ".gz", ".bz2", ".xz", ".7z", ".rar", ".tar")),
    Signature("a text document, not a hand history", suffixes=(".md", ".rst", ".pdf", ".html", ".htm")),
)
_HEAD = 4096


def looks_like(path: Path, head: str) -> str | None:
    """What the file at ``path`` whose text begins with ``head`` looks like (a row of
    :data:`SIGNATURES`), or None when it cannot be told."""
    suffix = path.suffix.lower()
    text = head[:_HEAD]
    for signature in SIGNATURES:
        if suffix in signature.suffixes or signature.pattern is not None and signature.pattern.search(text):
            return signature.what
    return None
