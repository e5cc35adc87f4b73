"""TOML that comes from outside (config files, PHH hand histories): bounded before the
parser sees it.

tomllib recurses once per nested array or table, so a document of nested brackets
exhausts the interpreter's stack (RecursionError) long before it runs out of text, and
it reads whatever size it is given. :func:`loads` refuses a document over ``max_bytes``
or nested deeper than ``max_depth`` with a :class:`TomlInputError` that says so, strips a
leading UTF-8 byte-order mark (editors on some systems write one), and turns tomllib's
own errors into the same exception, so a caller catches one error type.
"""
from __future__ import annotations

import re
from typing import Any

import tomllib

__all__ = ["MAX_DEPTH", "TomlInputError", "decode", "loads", "nesting_depth"]

MAX_DEPTH = 16  # nested arrays and inline tables; config and PHH need 2
BOM = "\ufeff"

# What ends each state of the scan: outside any string, the characters that open or
# close a level, a string or a comment; inside a basic string a backslash escapes the next
# character, so an escaped quote does not end it; literal strings have no escapes.
_NEXT = {
    None: re.compile(r'"""|\'\'\'|["\'#\[\]{}]'),
    '"': re.compile(r'\\.|"', re.DOTALL),
    '"""': re.compile(r'\\.|"""', re.DOTALL),
    "'": re.compile(r"'"),
    "'''": re.compile(r"'''"),
    "#": re.compile(r"\n"),
}


class TomlInputError(ValueError):
    """A TOML document that cannot be used; the message says where and why."""


def nesting_depth(text: str, stop_above: int | None = None) -> int:
    """How deeply ``text`` nests arrays and inline tables (brackets inside strings and
    comments do not count; a table header counts as its brackets). Stops counting once
    ``stop_above`` is exceeded."""
    depth = deepest = 0
    state = None  # the delimiter of the string we are in, "#" in a comment
    pos = 0
    while True:
        match = _NEXT[state].search(text, pos)
        if match is None:
            return deepest
        token = match.group()
        pos = match.end()
        if state is not None:
            if token == state or (state == "#"):
                state = None
            continue
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop_above is not None and deepest > stop_above:
                    return deepest
        elif token in "]}":
            depth = max(0, depth - 1)
        else:
            state = token


def decode(data: bytes, where: str) -> str:
    """Bytes of a TOML document as text: UTF-8 (TOML's only encoding), a leading byte-order
    mark dropped; TomlInputError naming ``where`` otherwise."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TomlInputError(f"{where}: not UTF-8 text (byte {exc.start}: {data[exc.start:exc.start + 1]!r}); "
                             "TOML files are UTF-8") from None
    return text[1:] if text.startswith(BOM) else text


def loads(text: str, where: str, *, max_bytes: int = 1 << 20, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """Parse a TOML document from outside, bounded (module docstring)."""
    if text.startswith(BOM):
        text = text[1:]
    if len(text) > max_bytes:
        raise TomlInputError(f"{where}: {len(text):,} characters, more than the {max_bytes:,} accepted")
    depth = nesting_depth(text, max_depth)
    if depth > max_depth:
        raise TomlInputError(f"{where}: arrays or tables nested more than {max_depth} deep")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlInputError(f"{where}: not valid TOML: {exc}") from None
    except RecursionError:  # the depth check above should make this unreachable
        raise TomlInputError(f"{where}: nested too deeply to read") from None
