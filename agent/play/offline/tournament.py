"""Duplicate tournaments ([loki2-1999] §6, [testbed-1998] §5).

In a duplicate tournament each deal — every seat's hole cards and the board — is played
once per seat rotation: in rotation r the player listed at k sits in seat (k + r) mod n,
so over n rotations every player holds every seat's cards exactly once, from the same
position at the table (the button is the last seat), and the luck of the cards cancels
out. The base order of the players is shuffled for each deal (from the seed) so that the
players meet in different relative seatings across deals. Results are in small bets per
hand; a player's result on one deal, averaged over its rotations, is the sampling unit of
the 95% confidence interval (mean ± 1.96 standard errors over deals). Without
``duplicate`` each deal is played once, seats fixed, the button moving each hand.

A tournament is cut into batches of consecutive deals, ``chunk`` deals each. A batch is a
pure function of (the setup, its index): the cards of deal d come from the seed and d;
the players of a batch are built fresh from their specs with generators seeded from the
seed, the batch and the seat list. So batches run in any order, in worker processes
(``workers``), and give the same results and logs as a run in one process; the runner
joins them in deal order. Within a batch the deals are played rotation by rotation (all
deals in rotation 0, then rotation 1, ...), so a player that learns does not meet a deal
again straight after seeing it.
"""
from __future__ import annotations

import csv
import math
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agent.config import TableConfig
from agent.game.records import RecordError, with_content_id
from agent.outputs import write_output
from agent.play.deals import Deal
from agent.play.kinds import ensure_kinds
from agent.play.offline.dealer import Dealer, HandLog
from agent.players import Player, PlayerSpec, create_player, parse_spec
from connectors.logs import acpc_log, phh

__all__ = [
    "BatchResult",
    "PlayerSummary",
    "TournamentResult",
    "TournamentSetup",
    "deal_cards",
    "play_batch",
    "run_tournament",
    "seat_names",
]

# Streams of the seed, so cards, seatings and players never share random numbers.
_CARDS, _SEATING, _PLAYERS = 1, 2, 3
Z95 = 1.959963984540054


def seat_names(specs: Sequence[PlayerSpec]) -> tuple[str, ...]:
    """A unique table name per entry: its label, else its kind, numbered when repeated."""
    base = [s.label or s.kind for s in specs]
    counts = {b: base.count(b) for b in base}
    seen: dict[str, int] = {}
    names = []
    for b in base:
        if counts[b] > 1:
            seen[b] = seen.get(b, 0) + 1
            names.append(f"{b}-{seen[b]}")
        else:
            names.append(b)
    if len(set(names)) != len(names):
        raise ValueError(f"seat names clash: {names}")
    return tuple(names)


@dataclass(frozen=True)
class TournamentSetup:
    """Everything a batch depends on besides its index (picklable for worker processes)."""

    specs: tuple[PlayerSpec, ...]
    table: TableConfig
    seed: int
    duplicate: bool = True
    chunk: int = 50  # deals per batch
    shuffle_seats: bool = True  # a fresh base seating per deal (duplicate only)
    name: str = "match"
    db: str | None = None  # SQLite file the players read models from and hands go to
    network: str = "local"  # the network the players' models are kept under in db
    half_life: float | None = None  # decay of a new db's models (None: the file's own)

    def __post_init__(self) -> None:
        if not 2 <= len(self.specs) <= 10:
            raise ValueError(f"a table seats 2-10 players, got {len(self.specs)}")
        if self.chunk < 1:
            raise ValueError("chunk must be at least 1")
        seat_names(self.specs)

    @classmethod
    def from_text(cls, specs: Sequence[str], table: TableConfig, seed: int, **kw: Any) -> TournamentSetup:
        ensure_kinds()
        return cls(tuple(parse_spec(s) for s in specs), table, seed, **kw)

    @property
    def names(self) -> tuple[str, ...]:
        return seat_names(self.specs)

    @property
    def rotations(self) -> int:
        return len(self.specs) if self.duplicate else 1


def deal_cards(seed: int, deal: int, seats: int) -> Deal:
    """The cards of deal ``deal``: a function of the seed and the deal index alone."""
    return Deal.draw(np.random.default_rng([seed, _CARDS, deal]), seats)


def _base_order(setup: TournamentSetup, deal: int) -> list[int]:
    n = len(setup.specs)
    if not (setup.duplicate and setup.shuffle_seats):
        return list(range(n))
    return np.random.default_rng([setup.seed, _SEATING, deal]).permutation(n).tolist()


@dataclass
class BatchResult:
    index: int  # batch number
    first_deal: int
    deal_chips: np.ndarray  # [deals, players]: chips each player won on each deal, all rotations
    hand_chips: np.ndarray  # [deals, rotations, players]: chips won per hand
    hand_seats: np.ndarray  # [deals, rotations, players]: the seat (and so the cards) each player held
    acpc_lines: list[str] = field(default_factory=list)
    phh_hands: list[phh.PhhHand] = field(default_factory=list)
    invalid_actions: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    rejected_hands: int = 0  # hands the database refused (setup.db)
    already_stored: int = 0  # hands the database held already (the same deal played the same way)


def _batch_players(setup: TournamentSetup, index: int) -> list[Player]:
    ensure_kinds()  # a worker process on another machine: the specs carry every setting
    names = setup.names
    seeds = np.random.SeedSequence([setup.seed, _PLAYERS, index]).spawn(len(setup.specs))
    return [create_player(spec, np.random.default_rng(ss), name=name)
            for spec, ss, name in zip(setup.specs, seeds, names)]


def play_batch(setup: TournamentSetup, index: int, deals: int, *, log_acpc: bool = False,
               log_phh: bool = False) -> BatchResult:
    """Play batch ``index``: deals index*chunk .. index*chunk + deals - 1 (deals ≤ chunk)."""
    start = time.perf_counter()
    players = _batch_players(setup, index)
    store = _open_store(setup)
    try:
        return _play_batch(setup, index, deals, players, store, log_acpc, log_phh, start)
    finally:
        if store is not None:
            store.close()


def _open_store(setup: TournamentSetup) -> Any:
    """The database of setup.db, or None. Opened per batch (so a batch stays a function of
    its inputs plus the file as the previous batches left it)."""
    if setup.db is None:
        return None
    from db import Database

    return Database(setup.db, half_life=setup.half_life)


def _play_batch(setup: TournamentSetup, index: int, deals: int, players: list[Player], store: Any,
                log_acpc: bool, log_phh: bool, start: float) -> BatchResult:
    n = len(setup.specs)
    rotations = setup.rotations
    first = index * setup.chunk
    if store is not None:
        # Every seat that models opponents reads them from the database ([poki-2002]: a
        # regular's history carries over); the hands are written here, once each.
        for player in players:
            player.attach_store(store, setup.network)
    rejected = 0
    known = 0  # hands found stored already: the same deal played the same way
    log = HandLog(acpc=log_acpc, phh=log_phh) if (log_acpc or log_phh) else None
    dealer = Dealer(setup.table, source=setup.name, log=log)
    cards = [deal_cards(setup.seed, first + d, n) for d in range(deals)]
    orders = [_base_order(setup, first + d) for d in range(deals)]
    hand_chips = np.zeros((deals, rotations, n), dtype=np.int64)
    hand_seats = np.zeros((deals, rotations, n), dtype=np.int64)
    for r in range(rotations):
        for d in range(deals):
            deal_index = first + d
            order = orders[d]
            if setup.duplicate:
                # Seat s holds the player listed at (s - r) mod n: over the rotations every
                # player sits in every seat, with that seat's cards, once.
                seated = [order[(s - r) % n] for s in range(n)]
                button = n - 1
            else:
                seated = order
                button = deal_index % n
            # Hands are numbered in the order they are played, as the ACPC dealer does.
            hand_number = first * rotations + r * deals + d
            record = dealer.play_hand(
                [players[p] for p in seated], cards[d], button=button,
                hand_id=f"{setup.name}:{deal_index}:{r}", hand_number=hand_number)
            for seat, (p, result) in enumerate(zip(seated, record.results)):
                hand_chips[d, r, p] = result.won - result.put_in
                hand_seats[d, r, p] = seat
            if store is not None:
                try:
                    # Named by content as well (the cards dealt included): a match that
                    # reuses a name never finds its hands taken for stored ones.
                    dealt = (*(c for hole in cards[d].holes for c in hole), *cards[d].board)
                    report = store.write_hand(with_content_id(record, dealt), setup.network)
                except RecordError:
                    rejected += 1  # a hand the database refuses is not stored; play goes on
                else:
                    known += report.duplicates
    return BatchResult(
        index=index,
        first_deal=first,
        deal_chips=hand_chips.sum(axis=1),
        hand_chips=hand_chips,
        hand_seats=hand_seats,
        acpc_lines=log.acpc_lines if log else [],
        phh_hands=log.phh_hands if log else [],
        invalid_actions=dict(dealer.invalid_actions),
        seconds=time.perf_counter() - start,
        rejected_hands=rejected,
        already_stored=known,
    )


@dataclass(frozen=True)
class PlayerSummary:
    name: str
    spec: str
    hands: int
    chips: int
    sb_per_hand: float
    ci95: float  # half-width of the 95% interval of sb_per_hand
    copies: int = 1  # seats this row averages over (by-spec rows)

    @property
    def low(self) -> float:
        return self.sb_per_hand - self.ci95

    @property
    def high(self) -> float:
        return self.sb_per_hand + self.ci95


def _mean_ci(per_deal: np.ndarray) -> tuple[float, float]:
    count = len(per_deal)
    if count == 0:
        return 0.0, math.inf
    mean = float(per_deal.mean())
    if count < 2:
        return mean, math.inf
    return mean, Z95 * float(per_deal.std(ddof=1)) / math.sqrt(count)


@dataclass
class TournamentResult:
    setup: TournamentSetup
    deals: int
    deal_chips: np.ndarray  # [deals, players]
    hand_chips: np.ndarray  # [deals, rotations, players]
    hand_seats: np.ndarray  # [deals, rotations, players]
    invalid_actions: dict[str, int]
    seconds: float
    rejected_hands: int = 0  # hands the database (setup.db) refused to store
    already_stored: int = 0  # hands it held already (the same deal played the same way)

    @property
    def names(self) -> tuple[str, ...]:
        return self.setup.names

    @property
    def rotations(self) -> int:
        return self.setup.rotations

    @property
    def hands(self) -> int:
        return self.deals * self.rotations

    def per_deal_sb(self) -> np.ndarray:
        """[deals, players]: small bets per hand each player won on each deal."""
        return self.deal_chips / (self.rotations * self.setup.table.small_bet)

    def summary(self) -> list[PlayerSummary]:
        per_deal = self.per_deal_sb()
        rows = []
        for p, (name, spec) in enumerate(zip(self.names, self.setup.specs)):
            mean, ci = _mean_ci(per_deal[:, p])
            rows.append(PlayerSummary(name, str(PlayerSpec(spec.kind, spec.params)), self.hands,
                                      int(self.deal_chips[:, p].sum()), mean, ci))
        return rows

    def by_spec(self) -> list[PlayerSummary]:
        """One row per distinct spec, averaging its copies deal by deal (Billings et al.'s [loki2-1999]
        2-enhanced / 8-control fields)."""
        per_deal = self.per_deal_sb()
        groups: dict[str, list[int]] = {}
        for p, spec in enumerate(self.setup.specs):
            groups.setdefault(str(PlayerSpec(spec.kind, spec.params)), []).append(p)
        rows = []
        for text, members in groups.items():
            mean, ci = _mean_ci(per_deal[:, members].mean(axis=1))
            rows.append(PlayerSummary(text, text, self.hands * len(members),
                                      int(self.deal_chips[:, members].sum()), mean, ci,
                                      len(members)))
        return rows

    def hand_number(self, deal: int, rotation: int) -> int:
        """The number of the hand in play order (its ACPC hand number)."""
        chunk, rotations = self.setup.chunk, self.rotations
        first = deal - deal % chunk
        in_batch = min(chunk, self.deals - first)
        return first * rotations + rotation * in_batch + deal - first

    def hand_rows(self) -> Iterator[dict[str, Any]]:
        """Raw per-hand results: one row per player per hand played."""
        names = self.names
        rotations = self.rotations
        small_bet = self.setup.table.small_bet
        for d in range(self.deals):
            for r in range(rotations):
                for p, name in enumerate(names):
                    chips = int(self.hand_chips[d, r, p])
                    yield {"deal": d, "rotation": r, "hand": self.hand_number(d, r), "player": name,
                           "seat": int(self.hand_seats[d, r, p]), "chips": chips,
                           "sb": chips / small_bet}

    def to_json(self, hands: bool = False) -> dict[str, Any]:
        def row(s: PlayerSummary) -> dict[str, Any]:
            return {"name": s.name, "spec": s.spec, "hands": s.hands, "chips": s.chips,
                    "sb_per_hand": s.sb_per_hand, "ci95": s.ci95, "copies": s.copies}

        out: dict[str, Any] = {
            "name": self.setup.name,
            "seed": self.setup.seed,
            "duplicate": self.setup.duplicate,
            "deals": self.deals,
            "rotations": self.rotations,
            "hands": self.hands,
            "chunk": self.setup.chunk,
            "table": {"small_blind": self.setup.table.small_blind,
                      "big_blind": self.setup.table.big_blind,
                      "small_bet": self.setup.table.small_bet,
                      "big_bet": self.setup.table.big_bet,
                      "max_bets": self.setup.table.max_bets,
                      "starting_stack": self.setup.table.starting_stack},
            "players": [row(s) for s in self.summary()],
            "by_spec": [row(s) for s in self.by_spec()],
            "invalid_actions": self.invalid_actions,
            "seconds": self.seconds,
        }
        if self.setup.db is not None:
            out["db"] = self.setup.db
            out["rejected_hands"] = self.rejected_hands
            out["already_stored_hands"] = self.already_stored
        if hands:
            out["hand_results"] = list(self.hand_rows())
        return out

    def write_csv(self, path: str | Path) -> None:
        with write_output(path, newline="") as handle:  # renamed into place when complete
            writer = csv.DictWriter(handle, ["deal", "rotation", "hand", "player", "seat",
                                             "chips", "sb"])
            writer.writeheader()
            writer.writerows(self.hand_rows())

    def format_table(self) -> str:
        lines = []
        mode = "duplicate" if self.setup.duplicate else "plain"
        lines.append(f"{self.setup.name}: {self.deals} deals x {self.rotations} "
                     f"({mode}) = {self.hands} hands, seed {self.setup.seed}, "
                     f"{self.seconds:.1f}s")
        header = f"{'player':<22} {'spec':<34} {'hands':>8} {'sb/hand':>9} {'95% CI':>19}"
        lines.append(header)
        lines.append("-" * len(header))

        def fmt(s: PlayerSummary) -> str:
            return (f"{s.name:<22} {s.spec:<34} {s.hands:>8} {s.sb_per_hand:>+9.4f} "
                    f"[{s.low:+8.4f},{s.high:+8.4f}]")

        for s in self.summary():
            lines.append(fmt(s))
        groups = self.by_spec()
        if len(groups) < len(self.setup.specs):
            lines.append("")
            lines.append("by spec (copies averaged per deal):")
            for s in groups:
                lines.append(fmt(s))
        if self.invalid_actions:
            lines.append(f"illegal moves turned into calls: {self.invalid_actions}")
        if self.rejected_hands:
            lines.append(f"hands the database refused (not stored): {self.rejected_hands}")
        if self.already_stored:
            lines.append(f"hands the database held already (the same deal played the same way; not stored "
                         f"twice): {self.already_stored}")
        return "\n".join(lines)


def _batches(setup: TournamentSetup, deals: int) -> list[tuple[int, int]]:
    return [(i, min(setup.chunk, deals - i * setup.chunk))
            for i in range(math.ceil(deals / setup.chunk))]


def _run_batch(args: tuple) -> BatchResult:  # top level, so worker processes can find it
    setup, index, count, log_acpc, log_phh = args
    return play_batch(setup, index, count, log_acpc=log_acpc, log_phh=log_phh)


class _LogWriter:
    """Writes batches' logs in deal order as they arrive in any order."""

    def __init__(self, setup: TournamentSetup, deals: int, acpc_path: str | Path | None,
                 phh_dir: str | Path | None) -> None:
        self.setup = setup
        self.acpc = None
        self.phh_dir = None
        self.pending: dict[int, BatchResult] = {}
        self.next = 0
        self._files = ExitStack()
        if acpc_path is not None:
            # Renamed into place at close: a reader never sees half a log.
            self.acpc = self._files.enter_context(write_output(acpc_path))
            self.acpc.write(acpc_log.format_header(
                setup.name, acpc_log.game_name(len(setup.specs)),
                deals * setup.rotations, setup.seed) + "\n")
        if phh_dir is not None:
            self.phh_dir = Path(phh_dir)
            self.phh_dir.mkdir(parents=True, exist_ok=True)

    def add(self, batch: BatchResult) -> None:
        self.pending[batch.index] = batch
        while self.next in self.pending:
            b = self.pending.pop(self.next)
            if self.acpc is not None:
                self.acpc.writelines(line + "\n" for line in b.acpc_lines)
            if self.phh_dir is not None and b.phh_hands:
                last = b.first_deal + b.deal_chips.shape[0] - 1
                path = self.phh_dir / f"{self.setup.name}-deals-{b.first_deal:07d}-{last:07d}.phhs"
                path.write_text(phh.format_hands(b.phh_hands, first=1))
            b.acpc_lines, b.phh_hands = [], []
            self.next += 1

    def close(self, totals: Sequence[float] | None, names: Sequence[str]) -> None:
        """Finish the ACPC log with its SCORE line (none when the run failed)."""
        if self.acpc is not None:
            if totals is not None:
                self.acpc.write(acpc_log.format_score(totals, names) + "\n")
        self._files.close()  # the log of a failed run is kept too, without its SCORE line


def run_tournament(setup: TournamentSetup, deals: int, *, workers: int = 1,
                   log_acpc: str | Path | None = None, log_phh: str | Path | None = None,
                   progress: Callable[[int], None] | None = None, cluster: Any = None) -> TournamentResult:
    """Play ``deals`` deals (each once per rotation) in batches, in ``workers`` processes;
    ``progress(hands)`` is called as batches finish. Logs are written in deal order.
    ``cluster``: run the batches there instead (anything with ``as_completed(fn, jobs)``
    yielding ``fn(job)`` as they finish, e.g. agent.play.offline.cluster.Cluster)."""
    if deals < 1:
        raise ValueError("a tournament needs at least one deal")
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if setup.db is not None and (workers > 1 or cluster is not None):
        raise ValueError("a match with a database plays its batches in order, in one process "
                         "(each batch starts from the models the earlier ones left): use one worker")
    start = time.perf_counter()
    jobs = [(setup, i, count, log_acpc is not None, log_phh is not None)
            for i, count in _batches(setup, deals)]
    writer = _LogWriter(setup, deals, log_acpc, log_phh)
    results: dict[int, BatchResult] = {}

    def take(batch: BatchResult) -> None:
        writer.add(batch)
        results[batch.index] = batch
        if progress is not None:
            progress(batch.deal_chips.shape[0] * setup.rotations)

    try:
        if cluster is not None:
            for batch in cluster.as_completed(_run_batch, jobs):
                take(batch)
        elif workers == 1 or len(jobs) == 1:
            for job in jobs:
                take(_run_batch(job))
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                futures = [pool.submit(_run_batch, job) for job in jobs]
                for future in as_completed(futures):
                    take(future.result())
        ordered = [results[i] for i in range(len(jobs))]
        deal_chips = np.concatenate([b.deal_chips for b in ordered])
        hand_chips = np.concatenate([b.hand_chips for b in ordered])
        hand_seats = np.concatenate([b.hand_seats for b in ordered])
        invalid: dict[str, int] = {}
        for b in ordered:
            for name, count in b.invalid_actions.items():
                invalid[name] = invalid.get(name, 0) + count
    except BaseException:
        writer.close(None, ())
        raise
    writer.close(deal_chips.sum(axis=0).tolist(), setup.names)
    return TournamentResult(setup, deals, deal_chips, hand_chips, hand_seats, invalid,
                            time.perf_counter() - start,
                            sum(b.rejected_hands for b in ordered), sum(b.already_stored for b in ordered))
