"""Pre-flop income rates of the 169 starting-hand types, by roll-out and iterated roll-out
simulation ([testbed-1998] §4.1; [poki-2002], "pre-flop betting strategy"), and the shipped tables.

Income rate (IR), as used here: the average net amount a hand wins per hand played, in
milli-bets (1/1000 of a small bet), when every player who plays has exactly one small bet
(the big blind) in the pot and the five board cards are dealt out with no further
betting; the best hand takes the pot, tied hands split it. One table per field size:
"2" (heads-up, 1 opponent), "3-4" (simulated with 3 opponents) and "5+" (6 opponents).

Roll-out ([poki-2002]: "all players call the first bet, the remaining cards are dealt
without further betting"): every opponent plays whatever it holds. Then IR = 1000 *
(players * E[our pot share] - 1).

Iterated roll-out ([poki-2002]): the roll-out repeated, each opponent now folding, before
putting anything in, a hand whose IR in the previous iteration was negative, which makes
the opponents' hands realistic. For that, folding has to cost something, so blinds are
posted: the seats are small blind (half a small bet, left in the pot if it folds), big
blind (one small bet; always plays) and the rest; our seat cycles round the table so
every seat gets the same number of trials, and the hand under test always plays (its
IR is the value of playing it). The steps:

  iteration 0: the plain roll-out's rates, IR_0;
  iteration i >= 1: opponents play type t iff IR_{i-1}[t] + sigma_i * z[i, t] > 0, with
    z[i, t] standard normal noise drawn from the seed and sigma_i = noise * cooling**(i-1)
    milli-bets, set to 0 once below min_noise: the diminishing noise of [poki-2002] (like
    simulated annealing's cooling), which lets hands that went negative early come back
    as the field changes. Every iteration measures every type with the same trial count
    and the same random stream per type (common random numbers), so the same set of
    playing types always gives the same rates;
  once the noise is off, opponents decide on the average rate of the noise-free
    iterations so far (fictitious play), which damps hands flipping in and out;
  stop at the first noise-free iteration whose rates are positive exactly for the types
    that played in it (a fixed point: no type gains by switching; "exact"), or where
    every type on the wrong side has a rate within two standard errors of 0 (a mixed
    type in all but name, e.g. one that loses when it also plays against itself;
    "within noise"), or after max_iterations (then the average decides the playing set);
  final: that playing set measured once more with the full trial count and a fresh
    random stream: the shipped "iterated" table.

[testbed-1998] reports that a pair of aces has the highest and 7-2 offsuit the lowest rate in
a 10-player roll-out; the 5+ table here shows the same ends.
"""
from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

import evaluator_pyx as ev

DATA_PATH = Path(__file__).resolve().parent / "data" / "income_rates.json"
FORMAT = "poki-income-rates/1"
# Field label -> opponents simulated (players = opponents + 1).
FIELDS: dict[str, int] = {"2": 1, "3-4": 3, "5+": 6}
KINDS = ("roll-out", "iterated")
HAND_TYPES: tuple[str, ...] = tuple(ev.HAND_TYPE_NAMES)
_TYPE_INDEX = {name: i for i, name in enumerate(HAND_TYPES)}

DEFAULT_TRIALS = 2_000_000
DEFAULT_ITERATION_TRIALS = 200_000
DEFAULT_SEED = 20240
DEFAULT_NOISE = 200.0
DEFAULT_COOLING = 0.85
DEFAULT_MIN_NOISE = 1.0
DEFAULT_MAX_ITERATIONS = 80


def field_of_players(players: int | str) -> str:
    """Table for a hand with `players` players dealt in: "2", "3-4" or "5+" (a label is
    returned as it is)."""
    if isinstance(players, str):
        if players not in FIELDS:
            raise ValueError(f"field must be one of {list(FIELDS)}, got {players!r}")
        return players
    if players < 2:
        raise ValueError(f"a hand has at least 2 players, got {players}")
    if players == 2:
        return "2"
    return "3-4" if players <= 4 else "5+"


def type_index(hand: str | int | tuple[int, int]) -> int:
    """Starting-hand type 0..168 of "AKs" / "AKo" / "TT", a two-card mask, or two card
    ints, or card text such as "As Kd"."""
    if isinstance(hand, str):
        name = hand.strip()
        if name in _TYPE_INDEX:
            return _TYPE_INDEX[name]
        if len(name) == 3 and name[:2] in _TYPE_INDEX and name[0] == name[1]:
            raise ValueError(f"a pair has no suited/offsuit form: {hand!r}")
        if len(name) in (2, 3) and name[0] in "23456789TJQKA" and name[1] in "23456789TJQKA":
            swapped = name[1] + name[0] + name[2:]
            if swapped in _TYPE_INDEX:
                return _TYPE_INDEX[swapped]
            raise ValueError(f"not a starting-hand type: {hand!r} (e.g. 'AKs', 'AKo', 'TT')")
        hand = ev.cards_to_mask(name)
    if isinstance(hand, tuple):
        hand = ev.cards_to_mask(list(hand))
    return ev.hand_type_of_holding(ev.holding_index(int(hand)))


def representative_holding(t: int) -> int:
    """One holding (mask) of type t: suits do not matter against random hands."""
    x, y = divmod(t, 13)
    if x == y:
        cards = [4 * x, 4 * x + 1]
    elif x > y:
        cards = [4 * x, 4 * y]              # suited: both clubs
    else:
        cards = [4 * y, 4 * x + 1]          # offsuit
    return ev.cards_to_mask(cards)


def _stream_seed(seed: int, *parts: int) -> int:
    """A 64-bit seed per (build seed, field, stage, type), independent of scheduling."""
    return int(np.random.SeedSequence([seed & 0xFFFFFFFFFFFFFFFF, *parts]).generate_state(1, np.uint64)[0])


Progress = Callable[[int], None]


def rollout_table(
    opponents: int,
    trials: int,
    seed: int,
    plays: np.ndarray | None = None,
    blinds: bool = False,
    workers: int = 1,
    progress: Progress | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(IR, standard error) in milli-bets of every type, `trials` each, seeds from `seed`."""
    plays_arr = None if plays is None else np.ascontiguousarray(plays, dtype=np.uint8)

    def one(t: int) -> tuple[float, float]:
        mean, se = ev.income_rollout(representative_holding(t), opponents, trials, _stream_seed(seed, t), plays_arr, blinds)
        if progress is not None:
            progress(1)
        return mean, se

    if workers > 1:
        # The kernel releases the GIL, so threads run it in parallel.
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(one, range(len(HAND_TYPES))))
    else:
        results = [one(t) for t in range(len(HAND_TYPES))]
    ir = np.array([r[0] for r in results]) * 1000.0
    se = np.array([r[1] for r in results]) * 1000.0
    return ir, se


@dataclass
class IteratedResult:
    ir: np.ndarray
    stderr: np.ndarray
    iterations: int
    stopped: str            # "exact" fixed point, "within noise", or "max iterations"
    playing_history: list[int] = field(default_factory=list)
    noise_history: list[float] = field(default_factory=list)


def iterated_table(
    opponents: int,
    start_ir: np.ndarray,
    iteration_trials: int,
    final_trials: int,
    seed: int,
    noise: float = DEFAULT_NOISE,
    cooling: float = DEFAULT_COOLING,
    min_noise: float = DEFAULT_MIN_NOISE,
    max_iterations: int = DEFAULT_MAX_ITERATIONS,
    workers: int = 1,
    progress: Progress | None = None,
    on_iteration: Callable[[int, float, int], None] | None = None,
) -> IteratedResult:
    """Iterated roll-outs from start_ir (the plain roll-out), as the module docstring says."""
    rng = np.random.default_rng(np.random.SeedSequence([seed & 0xFFFFFFFFFFFFFFFF, opponents, 0x0015E]))
    ir = np.asarray(start_ir, dtype=np.float64)
    decide = ir                      # the rates the opponents' decisions are based on
    calm_sum = np.zeros_like(ir)     # sum of the rates of the noise-free iterations
    calm = 0
    history: list[int] = []
    noises: list[float] = []
    stopped = "max iterations"
    i = 0
    for i in range(1, max_iterations + 1):
        sigma = noise * cooling ** (i - 1)
        if sigma < min_noise:
            sigma = 0.0
        z = rng.standard_normal(len(HAND_TYPES))   # drawn every iteration: stream fixed by seed
        plays = (decide + sigma * z > 0).astype(np.uint8)
        ir, se = rollout_table(opponents, iteration_trials, _stream_seed(seed, opponents, 1), plays, True, workers, progress)
        history.append(int(plays.sum()))
        noises.append(sigma)
        if on_iteration is not None:
            on_iteration(i, sigma, int(plays.sum()))
        if sigma == 0.0:
            wrong = plays != (ir > 0)
            if not wrong.any():
                # Every type that plays gains by it and every type that folds would lose.
                stopped = "exact"
                break
            if (np.abs(ir[wrong]) <= 2 * se[wrong]).all():
                # Only types whose rate is within two standard errors of 0 are on the
                # wrong side: as stable as this many trials can tell.
                stopped = "within noise"
                break
            # Without noise, decide on the average of the noise-free iterations so far
            # (fictitious play), which damps hands flipping in and out of play.
            calm_sum += ir
            calm += 1
            decide = calm_sum / calm
        else:
            decide = ir
    if stopped == "max iterations" and calm:
        ir = decide
    final_plays = (ir > 0).astype(np.uint8)
    ir_final, se_final = rollout_table(
        opponents, final_trials, _stream_seed(seed, opponents, 2), final_plays, True, workers, progress
    )
    return IteratedResult(ir_final, se_final, i, stopped, history, noises)


def build_tables(
    trials: int = DEFAULT_TRIALS,
    iteration_trials: int = DEFAULT_ITERATION_TRIALS,
    seed: int = DEFAULT_SEED,
    workers: int = 1,
    noise: float = DEFAULT_NOISE,
    cooling: float = DEFAULT_COOLING,
    min_noise: float = DEFAULT_MIN_NOISE,
    max_iterations: int = DEFAULT_MAX_ITERATIONS,
    fields: dict[str, int] | None = None,
    command: str = "",
    show_progress: bool = True,
) -> dict[str, Any]:
    """Roll-out and iterated tables for every field size, as the JSON document written to
    agent/engine/data/income_rates.json."""
    from tqdm import tqdm

    fields = dict(FIELDS if fields is None else fields)
    t0 = time.perf_counter()
    tables: dict[str, dict[str, Any]] = {kind: {} for kind in KINDS}
    n = len(HAND_TYPES)
    for label, opponents in fields.items():
        with tqdm(total=n, desc=f"roll-out {label}", unit="type", disable=not show_progress) as bar:
            ir, se = rollout_table(opponents, trials, _stream_seed(seed, opponents, 0), None, False, workers, bar.update)
        tables["roll-out"][label] = {
            "players": opponents + 1,
            "trials": trials,
            "ir": _round(ir),
            "stderr": _round(se),
        }
        with tqdm(total=n, desc=f"iterated {label}", unit="type", disable=not show_progress) as bar:

            def note(i: int, sigma: float, playing: int, bar=bar) -> None:
                bar.set_postfix_str(f"iteration {i}, noise {sigma:.1f} mb, {playing} types play")
                bar.reset(total=n)

            res = iterated_table(
                opponents, ir, iteration_trials, trials, seed, noise, cooling, min_noise,
                max_iterations, workers, bar.update, note,
            )
        tables["iterated"][label] = {
            "players": opponents + 1,
            "trials": trials,
            "iteration_trials": iteration_trials,
            "iterations": res.iterations,
            "stopped": res.stopped,
            "playing_per_iteration": res.playing_history,
            "noise_per_iteration": [round(s, 3) for s in res.noise_history],
            "playing": int((res.ir > 0).sum()),
            "ir": _round(res.ir),
            "stderr": _round(res.stderr),
        }
    return {
        "format": FORMAT,
        "unit": "milli-bets (1/1000 small bet) won per hand played",
        "definition": (
            "IR = 1000 * average net small bets won by the hand when every player who plays has one "
            "small bet in and the board is dealt out, no further betting; roll-out: every opponent "
            "plays; iterated: opponents fold types whose previous IR was negative (plus cooling noise), "
            "blinds of 1/2 and 1 small bet posted, our seat cycling round the table (see agent/engine/income_rates.py)"
        ),
        "command": command,
        "seed": seed,
        "trials_per_type": trials,
        "iteration_trials_per_type": iteration_trials,
        "noise": {"initial_mb": noise, "cooling": cooling, "min_mb": min_noise, "max_iterations": max_iterations},
        "fields": {label: {"players": o + 1, "opponents": o} for label, o in fields.items()},
        "hand_types": list(HAND_TYPES),
        "evaluator_backend": ev.ASSESS_BACKEND,
        "build_seconds": round(time.perf_counter() - t0, 1),
        "tables": tables,
    }


def _round(a: np.ndarray) -> list[float]:
    return [round(float(x), 1) for x in a]


def write_tables(data: dict[str, Any], path: Path | str = DATA_PATH) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)
    return path


class IncomeRateError(ValueError):
    """A missing or malformed income-rate file."""


@dataclass(frozen=True)
class IncomeRates:
    """One kind of table ("iterated" or "roll-out") for every field size, in milli-bets."""

    kind: str
    rates: dict[str, np.ndarray]          # field -> float64[169], HAND_TYPES order
    stderr: dict[str, np.ndarray]
    meta: dict[str, Any]

    def table(self, players: int | str) -> np.ndarray:
        """IR of all 169 types for a hand with `players` players (read-only array)."""
        return self.rates[field_of_players(players)]

    def rate(self, hand: str | int | tuple[int, int], players: int | str) -> float:
        """IR (milli-bets) of a hand: "AKs", card text "As Kd", a two-card mask or two card ints."""
        return float(self.table(players)[type_index(hand)])

    def holding_rates(self, players: int | str) -> np.ndarray:
        """IR of each of the 1326 holdings (HOLDINGS order), a new array: for initial
        weight tables."""
        return _holding_rates(self, field_of_players(players))

    def ranking(self, players: int | str) -> list[str]:
        """Hand types best first."""
        t = self.table(players)
        return [HAND_TYPES[i] for i in np.argsort(-t, kind="stable")]


@cache
def _holding_types() -> np.ndarray:
    return ev.holding_type_table()


def _holding_rates(rates: IncomeRates, label: str) -> np.ndarray:
    return rates.rates[label][_holding_types()]


@lru_cache(maxsize=8)
def _load(path: str, mtime_ns: int) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise IncomeRateError(f"{path}: no income-rate tables; build them with `poki tables build`") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise IncomeRateError(f"{path}: cannot read income-rate tables: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise IncomeRateError(f"{path}: not a {FORMAT} file")
    if data.get("hand_types") != list(HAND_TYPES):
        raise IncomeRateError(f"{path}: hand types are not the 169 of this version, in order")
    return data


@lru_cache(maxsize=16)
def _rates_of(path: str, mtime_ns: int, kind: str) -> IncomeRates:
    data = _load(path, mtime_ns)
    try:
        tables = data["tables"][kind]
    except (KeyError, TypeError):
        raise IncomeRateError(f"{path}: no {kind!r} tables (has {sorted(data.get('tables', {}))})") from None
    rates, errs = {}, {}
    for label in FIELDS:
        if label not in tables:
            raise IncomeRateError(f"{path}: {kind} table for field {label!r} missing")
        ir = np.array(tables[label]["ir"], dtype=np.float64)
        se = np.array(tables[label].get("stderr", [math.nan] * len(ir)), dtype=np.float64)
        if ir.shape != (len(HAND_TYPES),) or not np.isfinite(ir).all():
            raise IncomeRateError(f"{path}: {kind} table {label!r} needs 169 finite rates")
        ir.flags.writeable = False
        se.flags.writeable = False
        rates[label], errs[label] = ir, se
    meta = {k: v for k, v in data.items() if k != "tables"}
    meta["table"] = {label: {k: v for k, v in tables[label].items() if k not in ("ir", "stderr")} for label in FIELDS}
    return IncomeRates(kind, rates, errs, meta)


def load_income_rates(kind: str = "iterated", path: Path | str | None = None) -> IncomeRates:
    """The shipped tables (default: the iterated ones), parsed once and cached; a file
    rewritten since is read again."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    p = Path(path) if path is not None else DATA_PATH
    try:
        mtime = p.stat().st_mtime_ns
    except FileNotFoundError:
        raise IncomeRateError(f"{p}: no income-rate tables; build them with `poki tables build`") from None
    return _rates_of(str(p), mtime, kind)
