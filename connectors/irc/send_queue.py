"""The order in which a bot's lines leave: a priority queue in front of the flood bucket.

A server lets a client send only so many lines a second, so whatever waits in the queue
waits for the lines before it. What must not wait is the game: a turn line held behind
thirty answers to a stranger's ``!stats`` is time taken from the player it names. So
every line has a :class:`Priority` (protocol lines such as PONG and JOIN first, then the
game's lines, then answers to seated players, then everything else), and within one
priority lines keep their order.

Answers to one person are also *coalesced* and *rate-limited*: a line pushed with a
``key`` replaces the line with that key still waiting (the newer answer says all the older
one would), and two lines with the same key leave at least ``gap`` seconds apart. Thirty
``!stats`` in a row thus earn one answer at once and one more after the gap, never a
backlog in front of the game. A key names one person *and one kind* of answer (the dealer
keys ``!stats``, ``!help`` and refusals apart), so a newer answer replaces only an older
answer of the same kind, never a different one.

Answers also have a *reserved share* of the budget: while an answer may leave, at most
``answer_every - 1`` other lines leave before it, so a busy table delays an answer by a few
lines, never by a whole backlog of game lines. A waiting line that no longer holds (an
out-of-turn notice once the turn has come) is withdrawn by its key (:meth:`withdraw`).

Pure bookkeeping: no I/O, no threads (the client calls it under its send lock), with an
injected clock.
"""
from __future__ import annotations

import collections
import enum
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["OutLine", "Priority", "SendQueue"]


class Priority(enum.IntEnum):
    """Lower leaves first."""

    PROTOCOL = 0  # PONG, JOIN, NICK, QUIT ...: the connection itself
    GAME = 1  # the table's lines, hole cards, a player's move
    SEATED = 2  # answers to players seated at a table (a refused move ...)
    OTHER = 3  # everything else: answers to strangers, chatter, owners' replies


@dataclass(slots=True)
class OutLine:
    """One line waiting to leave. ``on_sent`` is called (on the client's loop thread) once
    the line has been written to the server. A ``mark`` is no line: its ``on_sent`` runs
    when the lines queued before it have been written (it costs nothing of the budget)."""

    text: str
    priority: Priority = Priority.OTHER
    key: str | None = None
    on_sent: Callable[[], object] | None = None
    mark: bool = False
    dropped: bool = field(default=False, repr=False)  # replaced by a newer line with its key


class SendQueue:
    """Lines by priority, FIFO within one; see the module docstring. ``gap``: the least
    seconds between two lines with the same key."""

    def __init__(self, gap: float = 10.0, clock: Callable[[], float] = time.monotonic,
                 answer_every: int = 4) -> None:
        if gap < 0:
            raise ValueError(f"the gap between keyed lines must be >= 0, got {gap}")
        if answer_every < 1:
            raise ValueError(f"answers need a share of at least one line in answer_every, got {answer_every}")
        self.gap = gap
        self.answer_every = answer_every
        self._others_in_a_row = 0  # lines without a key sent since the last answer
        self.clock = clock
        self._queues: tuple[collections.deque[OutLine], ...] = tuple(collections.deque() for _ in Priority)
        self._waiting: dict[str, OutLine] = {}  # key -> its line still in a queue
        self._last_sent: dict[str, float] = {}  # key -> when its last line left
        self._count = 0
        self.coalesced = 0  # lines replaced by a newer one with the same key
        self.withdrawn = 0  # lines withdrawn before they left (no longer true)

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    def push(self, line: OutLine) -> None:
        if line.key is not None:
            older = self._waiting.get(line.key)
            if older is not None:
                # The newer answer replaces the older one in its place in the queue.
                older.text, older.on_sent = line.text, line.on_sent
                self.coalesced += 1
                return
            self._waiting[line.key] = line
        self._queues[line.priority].append(line)
        self._count += 1

    def pop(self) -> OutLine | None:
        """The next line that may leave now (None: nothing, or only keyed lines inside
        their gap): by priority, except that an answer (a keyed line) that may leave goes
        after at most ``answer_every - 1`` other lines (its reserved share)."""
        now = self.clock()
        line = None
        if self._waiting and self._others_in_a_row >= self.answer_every - 1:
            line = self._take(now, keyed_only=True)
        if line is None:
            line = self._take(now, keyed_only=False)
        if line is not None:
            self._others_in_a_row = 0 if line.key is not None else self._others_in_a_row + 1
        return line

    def _take(self, now: float, *, keyed_only: bool) -> OutLine | None:
        for queue in self._queues:
            for index, line in enumerate(queue):
                key = line.key
                if key is None:
                    if keyed_only:
                        continue
                elif now - self._last_sent.get(key, -1e18) < self.gap:
                    continue  # rate-limited: later lines of this priority may go first
                del queue[index]
                self._count -= 1
                if key is not None:
                    del self._waiting[key]
                    self._last_sent[key] = now
                    if len(self._last_sent) > 4096:  # bounded: forget the oldest
                        for old in list(self._last_sent)[:1024]:
                            del self._last_sent[old]
                return line
        return None

    def withdraw(self, key: str) -> bool:
        """Drop the line with ``key`` still waiting, if any (it no longer holds)."""
        line = self._waiting.pop(key, None)
        if line is None:
            return False
        self._queues[line.priority].remove(line)
        line.dropped = True
        self._count -= 1
        self.withdrawn += 1
        return True

    def ready_in(self) -> float | None:
        """Seconds until a held keyed line may leave (None when nothing waits for a gap)."""
        if not self._count:
            return None
        now = self.clock()
        soonest = None
        for line in self._waiting.values():
            left = self.gap - (now - self._last_sent.get(line.key, -1e18))  # type: ignore[arg-type]  # only keyed lines wait
            soonest = left if soonest is None else min(soonest, left)
        return None if soonest is None else max(0.0, soonest)

    def clear(self) -> None:
        for queue in self._queues:
            queue.clear()
        self._waiting.clear()
        self._count = 0
