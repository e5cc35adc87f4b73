"""Large room files built from the real ones of ../shared/data/fpdb-lhe, for the memory
tests of the room readers (tests/test_rooms.py) and the figures of docs/reliability.md."""
from __future__ import annotations

import random
import re
from pathlib import Path

_GAME = re.compile(rb'<game gamecode="\d+">.*?</game>', re.S)


def ipoker_archive(source: Path, out: Path, size: int) -> int:
    """An archive of ``size`` bytes or a little more: the real session ``source`` again and
    again, each copy a document of its own (its own XML declaration), every game under a
    gamecode of its own. Returns the games written."""
    data = source.read_bytes()
    games = _GAME.findall(data)
    head = data[:data.index(b"<game ")]
    tail = data[data.rindex(b"</game>") + len(b"</game>"):]
    assert head.startswith(b"<?xml") and games
    code, written = 4_000_000_000, 0
    with out.open("wb") as f:
        while written < size:
            parts = [head]
            for game in games:
                code += 1
                parts.append(re.sub(rb'gamecode="\d+"', b'gamecode="%d"' % code, game, count=1))
            parts.append(tail)
            doc = b"".join(parts)
            f.write(doc)
            written += len(doc)
    return code - 4_000_000_000


def with_junk(source: Path, out: Path, size: int, rng: random.Random) -> None:
    """The real file ``source`` followed by ``size`` random bytes."""
    with out.open("wb") as f:
        f.write(source.read_bytes())
        left = size
        while left:
            n = min(left, 1 << 20)
            f.write(rng.randbytes(n))
            left -= n
