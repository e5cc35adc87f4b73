"""Room files for the tests: large ones built from the real ones of ../shared/data/fpdb-lhe
(the memory tests of the room readers, tests/test_rooms.py, and the figures of
docs/reliability.md), and a file's hands read straight through its room's reader."""
from __future__ import annotations

import random
import re
from pathlib import Path

from agent.game.tracker import Tracker
from connectors.logs import rooms
from connectors.logs.sources import ROOM_READERS

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


def hand_records(path: Path) -> list:
    """The record of each hand of a room's file, read by the room that identifies it and
    tracked by the rules (no database): what the readers make of the file, hand by hand."""
    text = rooms.decode(path.read_bytes())
    reader = next(r for r in ROOM_READERS.values() if r.identify(text))
    out = []
    for line, body in reader.split_hands(text):
        tracker = Tracker()
        record = None
        for event in rooms.hand_events(reader.parse_hand(body, f"{path}:{line}")):
            record = tracker.apply(event)
        out.append(record)
    return out
