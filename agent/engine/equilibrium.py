"""Heads-up limit hold'em solved in an abstract game: its betting tree, the game itself
(card abstraction and chance model from agent.engine.abstraction), the CFR+ trainer with
the exact best response after each batch, and the strategy file the ``cfr`` player reads.

**The abstract game.** The betting is the real game's, whole: two players, the button
posts the small blind (half a small bet) and acts first pre-flop, the big blind (one
small bet) acts first after the flop; bets of one small bet pre-flop and on the flop, two
on the turn and river; at most four bets a round (pre-flop the big blind is the first).
Only the cards are abstracted: a player sees its own bucket of each round so far (perfect
recall), never the opponent's; chance deals the two players' bucket sequences
independently from the measured distribution, one bucket a round; a fold pays what the
folder put in; a showdown pays by the measured share of the river buckets. Amounts are
in small bets; a small bet is the big blind here, so 1 sb/hand = 1000 mbb/hand.

**Solving it.** CFR+ (Tammelin 2014; Tammelin, Burch, Johanson, Bowling 2015), vectorised
over bucket sequences (agent.engine._cfr). After each batch of iterations the exact best
response of each player to the other's average strategy is computed by one walk of the
same tree: the exploitability of the average strategy in the abstract game,
(BR value of player 0 + BR value of player 1) / 2, falls toward 0 as it converges
(Zinkevich, Johanson, Bowling, Piccione, NIPS 2007: the average strategy of CFR is an
ε-equilibrium with ε shrinking as 1/√T; CFR+ is faster in practice).

**The strategy file** (``StrategyFile``): a compressed numpy archive with the
abstraction (buckets, pre-flop table), the chance model (sequence distribution, showdown
shares), the average strategy quantised to bytes, the training log (iterations, seconds,
exploitability after each batch) and a SHA-256 checksum over all of them, checked when
the file is read.
"""
from __future__ import annotations

import hashlib
import json
import lzma
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agent.engine.abstraction import CardAbstraction, ChanceModel
from agent.inputs import open_input
from agent.outputs import write_output

__all__ = [
    "AbstractGame",
    "BettingTree",
    "DEFAULT_STRATEGY",
    "EquilibriumError",
    "StrategyFile",
    "TrainLog",
    "Trainer",
    "betting_tree",
    "load_strategy",
    "mbb",
]

FOLD, CALL, RAISE = 0, 1, 2
ACTION_LETTERS = "fcr"
_DECISION, _FOLD, _SHOWDOWN, _CHANCE = 0, 1, 2, 3
BET_SIZE = (1.0, 1.0, 2.0, 2.0)  # in small bets, by round
MAX_BETS = 4
FORMAT = "poki-cfr-1"
DEFAULT_STRATEGY = Path(__file__).resolve().parent / "data" / "cfr-default.npz"
SPLIT_ROUND = 2  # subtrees below the turn's chance nodes are walked in parallel


class EquilibriumError(ValueError):
    """A strategy file that cannot be used (missing, damaged, another format)."""


def mbb(small_bets: float) -> float:
    """Small bets (= big blinds in limit hold'em) to milli-big-blinds."""
    return small_bets * 1000.0


@dataclass(frozen=True)
class BettingTree:
    """The public betting tree of heads-up limit hold'em, nodes in depth-first order.

    Per node: ``kind`` (0 decision, 1 fold, 2 showdown, 3 chance between rounds),
    ``round``, ``actor`` (who acts; at a fold, who folded), children ``first`` ..
    ``first + n_child`` in ``children`` (in the order fold, call, raise of those legal,
    the letter of each in ``action``), ``amount`` (a fold: what the folder put in; a
    showdown: what each put in). ``node_of`` maps a betting string (ACPC style: the
    letters f c r per round, rounds separated by '/') to its decision node.
    """

    kind: np.ndarray
    round: np.ndarray
    actor: np.ndarray
    first: np.ndarray
    n_child: np.ndarray
    children: np.ndarray
    amount: np.ndarray
    action: np.ndarray  # the letter index (0 f, 1 c, 2 r) of the edge into each node
    history: tuple[str, ...]
    node_of: dict[str, int] = field(repr=False)

    @property
    def n_nodes(self) -> int:
        return len(self.kind)

    def decision_nodes(self) -> np.ndarray:
        return np.nonzero(self.kind == _DECISION)[0]


def betting_tree() -> BettingTree:
    """Builds the tree (BettingTree); 6,378 decision nodes."""
    kind: list[int] = []
    rnd: list[int] = []
    actor: list[int] = []
    amount: list[float] = []
    action: list[int] = []
    history: list[str] = []
    child_lists: list[list[int]] = []

    def new(k: int, r: int, a: int, amt: float, act: int, hist: str) -> int:
        kind.append(k)
        rnd.append(r)
        actor.append(a)
        amount.append(amt)
        action.append(act)
        history.append(hist)
        child_lists.append([])
        return len(kind) - 1

    def decision(r: int, put: tuple[float, float], bets: int, who: int, n: int, hist: str, act: int) -> int:
        node = new(_DECISION, r, who, 0.0, act, hist)
        other = 1 - who
        facing = put[who] < put[other]
        kids = child_lists[node]
        if facing:
            kids.append(new(_FOLD, r, who, put[who], FOLD, hist + "f"))
        # Check or call: it closes the round unless it is the first action of a round
        # (pre-flop the small blind's call, after the flop the first check).
        level = max(put)
        called = (level, level)
        if n >= 1:
            if r == 3:
                kids.append(new(_SHOWDOWN, r, who, level, CALL, hist + "c"))
            else:
                chance = new(_CHANCE, r, -1, 0.0, CALL, hist + "c")
                kids.append(chance)
                child_lists[chance].append(decision(r + 1, called, 0, 1, 0, hist + "c/", -1))
        else:
            kids.append(decision(r, called, bets, other, n + 1, hist + "c", CALL))
        if bets < MAX_BETS:
            raised = list(called)
            raised[who] = level + BET_SIZE[r]
            kids.append(decision(r, (raised[0], raised[1]), bets + 1, other, n + 1, hist + "r", RAISE))
        return node

    decision(0, (0.5, 1.0), 1, 0, 0, "", -1)
    first = np.zeros(len(kind), dtype=np.int32)
    n_child = np.zeros(len(kind), dtype=np.int32)
    children: list[int] = []
    for i, kids in enumerate(child_lists):
        first[i] = len(children)
        n_child[i] = len(kids)
        children.extend(kids)
    kinds = np.array(kind, dtype=np.int32)
    node_of = {history[i]: i for i in range(len(kind)) if kinds[i] == _DECISION}
    return BettingTree(kinds, np.array(rnd, dtype=np.int32), np.array(actor, dtype=np.int32), first, n_child,
                       np.array(children, dtype=np.int32), np.array(amount, dtype=np.float64),
                       np.array(action, dtype=np.int32), tuple(history), node_of)


@dataclass(frozen=True)
class Block:
    """Where one decision node's strategy lives in a flat strategy array: entries lo ..
    lo + sequences x actions, row s (a bucket sequence) holding the node's actions, in
    the order of ``letters`` (0 fold, 1 call, 2 raise)."""

    node: int
    lo: int
    sequences: int
    actions: int
    letters: tuple[int, ...]
    seat: int  # who acts: 0 the button, 1 the big blind

    @property
    def hi(self) -> int:
        return self.lo + self.sequences * self.actions

    def rows(self, array: np.ndarray) -> np.ndarray:
        """The node's entries of ``array`` as (sequences, actions) (a view)."""
        return array[self.lo:self.hi].reshape(self.sequences, self.actions)


class AbstractGame:
    """The abstract game: the betting tree, the card abstraction and its chance model,
    and where each decision node's strategy lives in a flat array (``offset``: node n's
    entry for sequence s and its a-th action is offset[n] + s * n_child[n] + a;
    ``blocks`` lists them)."""

    def __init__(self, chance: ChanceModel, tree: BettingTree | None = None) -> None:
        self.chance = chance
        self.abstraction = chance.abstraction
        self.tree = tree or betting_tree()
        t = self.tree
        sizes = [self.abstraction.sequences_in_round(r) for r in range(4)]
        self.offset = np.full(t.n_nodes, -1, dtype=np.int64)
        total = 0
        for n in t.decision_nodes():
            self.offset[n] = total
            total += int(sizes[int(t.round[n])]) * int(t.n_child[n])
        self.size = int(total)
        self.sequences = tuple(sizes)
        self.blocks: tuple[Block, ...] = tuple(
            Block(int(n), int(self.offset[n]), int(sizes[int(t.round[n])]), int(t.n_child[n]),
                  tuple(int(t.action[c]) for c in t.children[int(t.first[n]):int(t.first[n]) + int(t.n_child[n])]),
                  int(t.actor[n]))
            for n in t.decision_nodes())
        self.block_of = {b.node: b for b in self.blocks}
        self._seats: np.ndarray | None = None

    def seat_of_entry(self) -> np.ndarray:
        """The seat (0 button, 1 big blind) whose strategy each entry is part of."""
        if self._seats is None:
            seats = np.zeros(self.size, dtype=np.int8)
            for b in self.blocks:
                seats[b.lo:b.hi] = b.seat
            self._seats = seats
        return self._seats

    def solver(self) -> Any:
        from agent.engine._cfr import Solver

        t = self.tree
        root, conds = self.chance.conditionals()
        return Solver(t.kind, t.round, t.actor, t.first, t.n_child, t.children, t.amount, self.offset,
                      self.abstraction.buckets, root, conds[0], conds[1], conds[2],
                      np.ascontiguousarray(self.chance.share.reshape(-1)), SPLIT_ROUND, self.size)

    def normalise(self, sums: np.ndarray) -> np.ndarray:
        """The strategy the sums (or quantised weights) stand for: each information set's
        entries over their total, uniform where the total is 0; float32."""
        out = np.empty(self.size, dtype=np.float32)
        for b in self.blocks:
            block = np.asarray(b.rows(sums), dtype=np.float64)
            tot = block.sum(axis=1, keepdims=True)
            b.rows(out)[:] = np.where(tot > 0, block / np.where(tot > 0, tot, 1.0), 1.0 / b.actions)
        return out

    def stored_mask(self) -> np.ndarray:
        """True for every entry but the last of each information set (the entries a
        strategy file keeps: the last is what the others leave of 255)."""
        keep = np.ones(self.size, dtype=bool)
        for b in self.blocks:
            b.rows(keep)[:, -1] = False
        return keep

    def quantise(self, policy: np.ndarray) -> np.ndarray:
        """Each information set's probabilities as bytes adding up to exactly 255
        (cumulative rounding: every byte within 1 of 255 x its probability)."""
        out = np.empty(self.size, dtype=np.uint8)
        for b in self.blocks:
            block = np.clip(np.asarray(b.rows(policy), dtype=np.float64), 0.0, None)
            tot = block.sum(axis=1, keepdims=True)
            block = np.where(tot > 0, block / np.where(tot > 0, tot, 1.0), 1.0 / b.actions)
            cum = np.rint(np.cumsum(block, axis=1) * 255.0)
            cum[:, -1] = 255.0
            q = np.diff(np.concatenate([np.zeros((b.sequences, 1)), cum], axis=1), axis=1)
            b.rows(out)[:] = np.clip(q, 0, 255).astype(np.uint8)
        return out

    def unquantise(self, stored: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The bytes of every entry from the stored ones (``stored_mask``)."""
        out = np.zeros(self.size, dtype=np.int64)
        out[mask] = stored
        for b in self.blocks:
            block = b.rows(out)
            block[:, -1] = 255 - block[:, :-1].sum(axis=1)
        if (out < 0).any():
            raise ValueError("an information set's stored bytes add up to more than 255")
        return out.astype(np.uint8)

    def probabilities(self, policy: np.ndarray, node: int, sequence: int) -> np.ndarray:
        """Action probabilities (in the node's child order) at ``node`` for a sequence."""
        k = int(self.tree.n_child[node])
        lo = int(self.offset[node]) + sequence * k
        return policy[lo:lo + k]


@dataclass
class TrainLog:
    """One row per batch: iterations done, training seconds so far, and the abstract
    game's exploitability of the average strategy then (mbb/hand), with both best
    responses' values."""

    rows: list[dict] = field(default_factory=list)

    def add(self, iterations: int, seconds: float, br0: float, br1: float) -> dict:
        row = {"iterations": iterations, "seconds": round(seconds, 3), "br0_mbb": round(mbb(br0), 4),
               "br1_mbb": round(mbb(br1), 4), "exploitability_mbb": round(mbb((br0 + br1) / 2), 4)}
        self.rows.append(row)
        return row


class Trainer:
    """CFR+ on an abstract game, resumable: ``run`` adds iterations in batches, each
    followed by the exact best response (the exploitability row of the log);
    ``save_checkpoint`` / ``load_checkpoint`` keep the regrets and sums."""

    def __init__(self, game: AbstractGame, *, threads: int = 2, delay: int = 0) -> None:
        self.game = game
        self.threads = threads
        self.delay = delay
        self.solver = game.solver()
        self.iterations = 0
        self.seconds = 0.0
        self.log = TrainLog()

    def average(self) -> np.ndarray:
        return self.game.normalise(self.solver.sums)

    def exploitability(self, policy: np.ndarray | None = None) -> tuple[float, float]:
        """(BR value of player 0, BR value of player 1) against ``policy`` (default: the
        average strategy), in small bets per hand."""
        pol = self.average() if policy is None else policy
        return self.solver.best_response_values(pol, self.threads)

    def run(self, iterations: int, batch: int, on_batch: Callable[[dict], None] | None = None) -> None:
        if iterations < 0 or batch < 1:
            raise ValueError("iterations must be >= 0 and batch >= 1")
        left = iterations
        while left > 0:
            step = min(batch, left)
            t0 = time.perf_counter()
            self.solver.iterate(step, self.iterations + 1, self.delay, self.threads)
            self.seconds += time.perf_counter() - t0
            self.iterations += step
            left -= step
            br0, br1 = self.exploitability()
            row = self.log.add(self.iterations, self.seconds, br0, br1)
            if on_batch:
                on_batch(row)

    def save_checkpoint(self, path: str | Path) -> None:
        meta = {"format": FORMAT + "-checkpoint", "iterations": self.iterations, "seconds": self.seconds,
                "delay": self.delay, "log": self.log.rows, "chance": self.game.chance.digest(),
                "samples": self.game.chance.samples, "dependence": self.game.chance.dependence}
        _atomic_savez(path, compressed=False, meta=np.array(json.dumps(meta)),
                      regrets=self.solver.regrets, sums=self.solver.sums, **_chance_arrays(self.game.chance))

    def load_checkpoint(self, path: str | Path) -> None:
        with open_input(path) as handle, np.load(handle, allow_pickle=False) as data:  # no FIFO or device
            meta = json.loads(str(data["meta"]))
            if meta.get("format") != FORMAT + "-checkpoint":
                raise EquilibriumError(f"{path}: not a CFR checkpoint of this version")
            if meta.get("chance") != self.game.chance.digest():
                raise EquilibriumError(f"{path}: a checkpoint of another abstraction")
            self.solver.set_state(data["regrets"], data["sums"])
        self.iterations = int(meta["iterations"])
        self.seconds = float(meta["seconds"])
        self.delay = int(meta["delay"])
        self.log = TrainLog(list(meta["log"]))


def _chance_arrays(chance: ChanceModel) -> dict[str, np.ndarray]:
    a = chance.abstraction
    out: dict[str, np.ndarray] = {"buckets": np.array(a.buckets, dtype=np.int32), "preflop": a.preflop.astype(np.uint8),
           "sequence_probs": chance.sequence_probs.astype(np.float64), "share": chance.share.astype(np.float64)}
    if a.flops is not None:
        out["flops"] = np.asarray(a.flops, dtype=np.uint8)
    return out


def chance_from_checkpoint(path: str | Path) -> ChanceModel:
    """The chance model saved with a checkpoint (to resume without measuring again)."""
    with open_input(path) as handle, np.load(handle, allow_pickle=False) as data:  # no FIFO or device
        return _chance_from(data, json.loads(str(data["meta"])), str(path))


def _chance_from(data: Any, meta: dict, where: str) -> ChanceModel:
    counts = [int(b) for b in data["buckets"]]
    if len(counts) != 4:
        raise EquilibriumError(f"{where}: {len(counts)} bucket counts, not one for each of the 4 rounds")
    buckets = (counts[0], counts[1], counts[2], counts[3])
    flops = np.array(data["flops"], dtype=np.uint8) if "flops" in data else None
    abstraction = CardAbstraction(buckets, np.array(data["preflop"], dtype=np.uint8), flops)
    seq = np.array(data["sequence_probs"], dtype=np.float64)
    share = np.array(data["share"], dtype=np.float64)
    if seq.shape != buckets or share.shape != (buckets[3], buckets[3]):
        raise EquilibriumError(f"{where}: the chance model does not fit the buckets {buckets}")
    return ChanceModel(abstraction, seq, share, dict(meta.get("samples", {})), float(meta.get("dependence", -1.0)))


def _atomic_savez(path: str | Path, *, compressed: bool, **arrays: np.ndarray) -> None:
    """Written aside, then renamed (agent.outputs): a run killed while writing leaves the old file."""
    with write_output(path, binary=True) as fh:
        # Numbers only: the files are read with allow_pickle=False, so none is written pickled.
        if compressed:
            np.savez_compressed(fh, allow_pickle=False, **arrays)
        else:
            np.savez(fh, allow_pickle=False, **arrays)


def _pack(arr: np.ndarray) -> np.ndarray:
    """uint8 array -> its LZMA-compressed bytes, as a uint8 array."""
    return np.frombuffer(lzma.compress(np.ascontiguousarray(arr, dtype=np.uint8).tobytes(), preset=9), dtype=np.uint8)


def _unpack(packed: np.ndarray) -> np.ndarray:
    try:
        return np.frombuffer(lzma.decompress(packed.tobytes()), dtype=np.uint8)
    except lzma.LZMAError as exc:
        raise ValueError(f"a compressed array is damaged ({exc})") from None


def _checksum(meta: dict, arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    h.update(json.dumps(meta, sort_keys=True).encode())
    for name in sorted(arrays):
        arr = np.ascontiguousarray(arrays[name])
        h.update(name.encode() + b"\0" + str(arr.dtype).encode() + b"\0" + str(arr.shape).encode() + b"\0")
        h.update(arr.tobytes())
    return h.hexdigest()


@dataclass(frozen=True)
class StrategyFile:
    """A solved abstract game ready to play: the game, its average strategy (float32,
    from bytes), the training log, and the file's checksum."""

    game: AbstractGame
    policy: np.ndarray
    log: list[dict]
    meta: dict
    checksum: str
    path: str

    @staticmethod
    def write(path: str | Path, game: AbstractGame, policy: np.ndarray, log: list[dict],
              extra: dict | None = None) -> str:
        """Quantise ``policy`` to bytes (``quantise``), write the file and return its
        checksum. Each information set's last probability is not stored (the bytes of an
        information set add up to 255), and the rest are LZMA-compressed."""
        q = game.quantise(policy)
        arrays = dict(_chance_arrays(game.chance), policy=q)
        meta = {"format": FORMAT, "abstraction": game.abstraction.describe(), "samples": game.chance.samples,
                "dependence": game.chance.dependence, "log": log, "size": game.size,
                "decision_nodes": int(len(game.tree.decision_nodes())), **(extra or {})}
        checksum = _checksum(meta, arrays)
        meta_out = dict(meta, checksum=checksum)
        stored = _chance_arrays(game.chance)
        stored["policy"] = q[game.stored_mask()]
        if "flops" in stored:
            stored["flops"] = stored["flops"].reshape(-1)
        packed = {f"{k}_lzma": _pack(v) for k, v in stored.items() if k in ("policy", "flops")}
        plain = {k: v for k, v in stored.items() if k not in ("policy", "flops")}
        _atomic_savez(path, compressed=False, meta=np.array(json.dumps(meta_out)), **plain, **packed)
        return checksum

    @staticmethod
    def read(path: str | Path) -> StrategyFile:
        where = str(path)
        try:
            with open_input(path) as handle, np.load(handle, allow_pickle=False) as data:  # no FIFO or device
                meta = json.loads(str(data["meta"]))
                arrays = {k: np.array(data[k]) for k in ("buckets", "preflop", "sequence_probs", "share")}
                packed = np.array(data["policy_lzma"])
                if "flops_lzma" in data:
                    arrays["flops"] = _unpack(np.array(data["flops_lzma"])).reshape(-1, 1326)
        except FileNotFoundError:
            raise EquilibriumError(f"{where}: no such strategy file (make one with `poki train-cfr`)") from None
        except (OSError, KeyError, ValueError) as exc:
            raise EquilibriumError(f"{where}: not a strategy file ({exc})") from None
        if meta.get("format") != FORMAT:
            raise EquilibriumError(f"{where}: format {meta.get('format')!r}, expected {FORMAT!r}")
        try:
            chance = _chance_from(arrays, meta, where)
            game = AbstractGame(chance)
            stored = _unpack(packed)
        except ValueError as exc:
            raise EquilibriumError(f"{where}: damaged ({exc})") from None
        mask = game.stored_mask()
        if meta.get("size") != game.size or stored.shape[0] != int(mask.sum()):
            raise EquilibriumError(f"{where}: {stored.shape[0]} stored entries for a game of {game.size}")
        arrays["policy"] = game.unquantise(stored, mask)
        stated = meta.pop("checksum", None)
        if stated != _checksum(meta, arrays):
            raise EquilibriumError(f"{where}: checksum mismatch (the file is damaged or was edited)")
        policy = game.normalise(arrays["policy"])
        return StrategyFile(game, policy, list(meta.get("log", [])), meta, stated, where)


_LOADED: dict[str, StrategyFile] = {}


def load_strategy(path: str | Path | None = None) -> StrategyFile:
    """The strategy file at ``path`` (default: the shipped one), read once per process."""
    key = str(Path(path).resolve()) if path else str(DEFAULT_STRATEGY)
    hit = _LOADED.get(key)
    if hit is None:
        hit = _LOADED[key] = StrategyFile.read(key)
    return hit
