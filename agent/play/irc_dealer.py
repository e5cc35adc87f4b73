"""Hosting IRC tables: the dealer bot (connectors.irc.dealer) with its bank in SQLite
(db.bankroll: bankrolls across sessions, seed 004's tiers by minimum bankroll) and every
hand written to the opponent database and to ACPC (``STATE:`` lines) and PHH logs.

:func:`run_dealer` is what ``poki irc deal`` runs; :class:`DealerHost` is the same thing
to start and stop from code (the demo, the benchmark, the tests).
"""
from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agent.config import Config, TableConfig
from agent.game.records import HandRecord
from connectors.logs import acpc_log
from connectors.logs import phh
from connectors.irc.client import IrcClient
from connectors.irc.dealer import BankError, DealerBot
from db.bankroll import BankrollError, Bankrolls
from db.database import Database

__all__ = ["DealerHost", "HandLogFiles", "SqliteBank", "network_of", "split_server"]

log = logging.getLogger("poki.irc.dealer")


def split_server(text: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port); ValueError naming the text otherwise."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


def network_of(host: str) -> str:
    """The database's network name for players met on the IRC server ``host``."""
    return f"irc:{host}"


class SqliteBank:
    """connectors.irc.dealer's Bank on db.bankroll (the loop thread owns the connection)."""

    def __init__(self, bankrolls: Bankrolls) -> None:
        self.bankrolls = bankrolls

    def _call(self, fn, *args):  # noqa: ANN001, ANN202
        try:
            return fn(*args)
        except BankrollError as exc:
            raise BankError(str(exc)) from None

    def open_table(self, channel: str) -> int:
        return self._call(self.bankrolls.open_table, channel)

    def sit(self, channel: str, nick: str, userhost: str, chips: int | None, buy_in: int,
            minimum: int) -> tuple[int, int]:
        return self._call(self.bankrolls.sit, channel, nick, userhost, chips, buy_in, minimum)

    def leave(self, channel: str, nick: str) -> tuple[int, int]:
        return self._call(self.bankrolls.leave, channel, nick)

    def rename(self, channel: str, old: str, new: str, userhost: str) -> None:
        self._call(self.bankrolls.rename, channel, old, new, userhost)

    def bankroll(self, nick: str) -> int | None:
        return self.bankrolls.bankroll(nick)

    def hand_done(self, channel: str, record: HandRecord, stacks: dict[str, int], next_hand: int) -> None:
        self.bankrolls.hand_done(channel, record, stacks, next_hand)


class HandLogFiles:
    """Appends each committed hand to ``<dir>/<table>.acpc.log`` and ``<dir>/<table>.phhs``."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)

    def _stem(self, channel: str) -> str:
        return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in channel.lstrip("#&")) or "table"

    def add(self, channel: str, record: HandRecord, holes: dict[str, tuple[int, int]]) -> None:
        number = int(record.hand_id.rsplit(":", 1)[1])
        stem = self._stem(channel)
        line = acpc_log.format_state(acpc_log.hand_from_record(record, holes, number))
        with open(self.dir / f"{stem}.acpc.log", "a", encoding="utf-8") as out:
            out.write(line + "\n")
        with open(self.dir / f"{stem}.phhs", "a", encoding="utf-8") as out:
            out.write(f"[{number}]\n{phh.format_hand(phh.hand_from_record(record, holes))}\n")


@dataclass
class DealerHost:
    """A dealer bot on its own thread, with its database and logs; ``start()``, then
    ``wait()`` for ``hands`` hands or ``stop()``."""

    server: str
    channels: Sequence[str]
    db_path: str | Path
    config: Config
    nick: str = "dealer"
    hands: int | None = None
    seed: int = 1995
    log_dir: str | Path | None = None
    action_seconds: float | None = None
    hand_pause: float | None = None
    flood_rate: float | None = None
    table: TableConfig | None = None
    min_players: int = 2  # seated before the session's first hand

    def __post_init__(self) -> None:
        self.host, self.port = split_server(self.server)
        self.network = network_of(self.host)
        self.finished = threading.Event()
        self.ready = threading.Event()
        self.bot: DealerBot | None = None
        self.client: IrcClient | None = None
        self.error: BaseException | None = None
        self.logs = HandLogFiles(self.log_dir) if self.log_dir is not None else None

    def start(self) -> DealerHost:
        irc = self.config.irc
        rng = np.random.default_rng(self.seed)
        self.client = IrcClient(
            self.host, self.port, self.nick, name=f"dealer {self.nick}",
            flood_burst=irc.flood_burst,
            flood_rate=irc.flood_lines_per_second if self.flood_rate is None else self.flood_rate,
            reconnect_min=irc.reconnect_min_seconds, reconnect_max=irc.reconnect_max_seconds,
            rng=np.random.default_rng([self.seed, 1]))
        client = self.client
        started = threading.Event()

        def open_db() -> None:
            # The database belongs to the loop thread: open it there, first thing.
            try:
                self.database = Database(self.db_path, half_life=self.config.model.half_life_hands,
                                         synchronous=self.config.database.synchronous)
                self.bankrolls = Bankrolls(self.database, self.network, initial=irc.initial_bankroll)
                self.bot = DealerBot(
                    client, self.channels, self.table or self.config.table, SqliteBank(self.bankrolls),
                    rng=rng,
                    action_seconds=irc.action_seconds if self.action_seconds is None else self.action_seconds,
                    max_timeouts=irc.max_timeouts,
                    hand_pause=irc.hand_pause_seconds if self.hand_pause is None else self.hand_pause,
                    hands=self.hands, tiers=irc.tier, min_players=self.min_players,
                    on_hand=self.logs.add if self.logs is not None else None,
                    done=self.finished.set)
            except BaseException as exc:  # noqa: BLE001 - reported to the starter
                self.error = exc
                self.finished.set()
            finally:
                started.set()

        client.call_soon(open_db)
        client.start()
        started.wait(60)
        if self.error is not None:
            client.stop()
            raise self.error
        return self

    def wait_tables(self, timeout: float = 30.0) -> bool:
        """Wait until the dealer sits in every channel (players may then !sit)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            client = self.client
            if client is not None and all(c in client.joined for c in self.channels):
                return True
            time.sleep(0.02)
        return False

    def wait(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)

    def call(self, fn, timeout: float = 30.0):  # noqa: ANN001, ANN201
        """Run ``fn()`` on the dealer's loop thread (which owns the database) and return
        its result."""
        client = self.client
        if client is None:
            raise RuntimeError("the dealer is not running")
        future: Future = Future()

        def job() -> None:
            try:
                future.set_result(fn())
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                future.set_exception(exc)

        client.call_soon(job)
        return future.result(timeout)

    def chips(self) -> tuple[int, int]:
        """(chips in bankrolls and on tables, chips ever granted): equal when no chip was
        made or lost."""
        return self.call(lambda: (self.bankrolls.total(), self.bankrolls.granted()))

    def stop(self) -> None:
        client = self.client
        if client is None:
            return

        def close() -> None:
            client.handler = None  # no more events: the tables are closed
            db = getattr(self, "database", None)
            if db is not None:
                db.close()
                self.database = None

        try:
            self.call(close, timeout=30.0)
        except Exception as exc:  # noqa: BLE001 - stopping goes on
            log.error("closing the dealer's database: %s", exc)
        client.stop("the dealer is closing the tables")
        self.client = None
