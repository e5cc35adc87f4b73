"""Poki heads-up: the equilibrium strategy, moved toward a best response to its opponent
only as far as the evidence about that opponent goes.

The idea is Johanson, Zinkevich and Bowling's restricted Nash response ("Computing
robust counter-strategies", NIPS 2007): solve the abstract game in which the opponent
must play a model of itself with probability p and may play anything with probability
1 - p; our strategy in that game exploits the model as far as p allows while a best
response to it can win back only what the 1 - p part allows. Here:

* **The model** starts as the equilibrium itself (agent.engine.equilibrium) and moves
  with what the opponent does. In each betting context (the round and the betting so
  far in it: 38 contexts, each with one player to act) the opponent's actions are
  counted at the nodes where it took them. The equilibrium's frequencies at those very
  nodes (its own bucket sequences there weighted by how it reaches them, which depends
  on its actions and chance only, not on ours) give the counts an equilibrium player
  would have made; ``prior_strength`` pseudo-actions at those frequencies are pooled with
  the real counts. The model at every node of the context is then the equilibrium
  tilted (each action's probability times one factor per action and context, the same
  for all bucket sequences) until its frequency over the observed nodes matches the
  pooled one: the strategy closest to the equilibrium in relative entropy with the
  opponent's frequencies. It keeps the equilibrium's way of choosing holdings (strong
  hands raise, weak ones fold); against a player of the equilibrium it stays at the
  equilibrium, whatever we play. Only contexts whose counts differ from an equilibrium
  player's are tilted (the likelihood-ratio test of the counts against the expected
  counts at the nodes seen, each context at ``significance`` / the contexts tested, so that an equilibrium
  player has any context flagged at a solve with probability at most ``significance``);
  elsewhere the model is the equilibrium, and with no such context no response is solved
  at all. A share ε of each action in the tilted contexts
  is then taken card-blind at the context's frequencies, ε fitted by likelihood to the
  opponent's actions in the hands it showed down (an opponent that raises whatever it
  holds is not read as holding strength).
* **p** grows with the evidence: ``p_max`` x hands / (hands + ``confidence_hands``).
  With no hands p is 0 and the response is the equilibrium.
* **The response** is solved by CFR+ in the abstract game (agent.engine._cfr's model
  mode), once with the opponent as the button and once as the big blind, each warm-started
  at the equilibrium (regrets in proportion to the equilibrium's probabilities), after
  ``min_hands`` hands and then each time the hands seen have doubled (at most
  ``max_interval`` hands apart). Between solves the last response is played. At a live
  table (``observe(..., background=True)``: IRC, ACPC, where decisions have deadlines)
  the solve runs on a thread of its own and the new response is played from the hand
  after it is done, so no decision waits for it; in matches it runs in place, so a seeded
  match replays exactly.

How exploitable the response may become is set by p: in the abstract game the response
to a badly wrong model (that of a local best response, agent.engine.lbr) was about 60
mbb/hand exploitable at p = 0.25 and 700 at p = 0.45 (docs/strength.md §12), so
``p_max`` is kept low.

Everything is deterministic given the hands seen, so a seeded match replays exactly.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

from agent.engine.equilibrium import ACTION_LETTERS, AbstractGame, StrategyFile
from agent.engine.heads_up import StrategyView

if TYPE_CHECKING:
    from agent.game.records import HandRecord

__all__ = ["HeadsUpResponder", "ResponseSettings", "contexts_of", "equilibrium_frequencies"]

_LETTER_OF_KIND = {"f": "f", "k": "c", "c": "c", "b": "r", "r": "r"}
_BOARD_AT_ROUND = (0, 3, 4, 5)


@dataclass(frozen=True)
class ResponseSettings:
    """How far and how fast the response moves from the equilibrium (module docstring)."""

    prior_strength: float = 20.0  # pseudo-actions at the equilibrium's frequencies per context
    p_max: float = 0.25
    confidence_hands: float = 300.0
    min_hands: int = 100
    max_interval: int = 2000  # hands between solves at most, once the doubling is past it
    iterations: int = 40  # CFR+ iterations of each restricted-response solve
    warm_start: float = 4.0  # initial regret, in small bets x the opponent's reach, of a sure action
    showdowns_kept: int = 400
    significance: float = 0.001  # the chance that a solve flags any context of an equilibrium player


def contexts_of(game: AbstractGame) -> tuple[np.ndarray, list[str]]:
    """The betting context of every node (-1 for nodes that are not decisions) and the
    contexts' names ('round:betting in the round')."""
    names: dict[str, int] = {}
    out = np.full(game.tree.n_nodes, -1, dtype=np.int32)
    for n in game.tree.decision_nodes():
        parts = game.tree.history[n].split("/")
        key = f"{len(parts) - 1}:{parts[-1]}"
        out[n] = names.setdefault(key, len(names))
    return out, list(names)


@dataclass
class _Reach:
    """The equilibrium's self-play, node by node: the actor's own reach over its bucket
    sequences (chance included) and the other player's total reach."""

    actor: dict[int, np.ndarray]
    other: np.ndarray  # per node


def _self_play_reach(game: AbstractGame, policy: np.ndarray) -> _Reach:
    t = game.tree
    root, conds = game.chance.conditionals()
    buckets = game.abstraction.buckets
    reach: dict[int, tuple[np.ndarray, np.ndarray]] = {0: (root.copy(), root.copy())}
    actor: dict[int, np.ndarray] = {}
    other = np.zeros(t.n_nodes)
    for n in range(t.n_nodes):
        r0, r1 = reach.pop(n)
        kind = int(t.kind[n])
        kids = t.children[int(t.first[n]):int(t.first[n]) + int(t.n_child[n])]
        if kind == 0:
            who = int(t.actor[n])
            mine = r0 if who == 0 else r1
            actor[n] = mine.astype(np.float32)
            other[n] = float((r1 if who == 0 else r0).sum())
            k = len(kids)
            lo = int(game.offset[n])
            probs = policy[lo:lo + mine.shape[0] * k].reshape(-1, k)
            for i, c in enumerate(kids):
                r = mine * probs[:, i]
                reach[int(c)] = (r, r1) if who == 0 else (r0, r)
        elif kind == 3:
            r1n = int(t.round[kids[0]])
            cond = conds[r1n - 1].reshape(-1, buckets[r1n])
            reach[int(kids[0])] = ((r0[:, None] * cond).reshape(-1), (r1[:, None] * cond).reshape(-1))
    return _Reach(actor, other)


def equilibrium_frequencies(game: AbstractGame, policy: np.ndarray, reach: _Reach | None = None) -> np.ndarray:
    """(contexts, 3) action frequencies (fold, call, raise) of the player to act in each
    betting context under self-play of ``policy``, each node weighted by the chance of
    reaching it."""
    reach = reach or _self_play_reach(game, policy)
    ctx, names = contexts_of(game)
    num = np.zeros((len(names), 3))
    den = np.zeros(len(names))
    plain = np.zeros((len(names), 3))  # unweighted, for contexts the self-play never reaches
    for n, mine in reach.actor.items():
        block = game.block_of[n]
        probs = block.rows(policy).astype(np.float64)
        w = mine.astype(np.float64) * reach.other[n]
        letters = list(block.letters)
        num[ctx[n], letters] += w @ probs
        den[ctx[n]] += w.sum()
        plain[ctx[n], letters] += probs.sum(axis=0)
    plain /= np.maximum(plain.sum(axis=1, keepdims=True), 1e-300)
    return np.where(den[:, None] > 0, num / np.where(den > 0, den, 1.0)[:, None], plain)


def _node_frequencies(game: AbstractGame, policy: np.ndarray, reach: _Reach) -> dict[int, np.ndarray]:
    """Each decision node's action frequencies (fold, call, raise) of the player to act,
    its bucket sequences weighted by its own reach (chance included)."""
    out = {}
    for n, mine in reach.actor.items():
        block = game.block_of[n]
        probs = block.rows(policy).astype(np.float64)
        w = mine.astype(np.float64)
        total = w.sum()
        row = np.zeros(3)
        letters = list(block.letters)
        row[letters] = (w @ probs) / total if total > 0 else probs.mean(axis=0)
        out[n] = row
    return out


@dataclass
class _Observations:
    """What was seen of one opponent: its actions at each node, its shown-down hands."""

    counts: dict = field(default_factory=dict)  # node -> [fold, call, raise] counts
    hands: int = 0
    showdowns: list = field(default_factory=list)  # (its seat, betting string, hole, board)
    next_solve: int = 0


class HeadsUpResponder:
    """The equilibrium and, per opponent, the restricted response to its model."""

    def __init__(self, strategy: StrategyFile, settings: ResponseSettings | None = None) -> None:
        self.settings = settings or ResponseSettings()
        self.game = strategy.game
        self.equilibrium = strategy.policy
        self.base_view = StrategyView(self.game, self.equilibrium)
        self._reach = _self_play_reach(self.game, self.equilibrium)
        self.context, self.context_names = contexts_of(self.game)
        self.prior = equilibrium_frequencies(self.game, self.equilibrium, self._reach)
        self.node_freq = _node_frequencies(self.game, self.equilibrium, self._reach)
        self._views: dict[str, StrategyView] = {}
        self._obs: dict[str, _Observations] = {}
        self._solver: Any | None = None  # the compiled CFR solver (agent.engine._cfr: no stubs), made on first use
        self._solving: threading.Thread | None = None
        self.solves = 0
        self.last_p: dict[str, float] = {}
        self.last_eps: dict[str, float] = {}
        self.last_significant: dict[str, list[str]] = {}
        self._floor_cache: dict[int, np.ndarray] = {}
        self._legal = self._legal_letters()

    def _legal_letters(self) -> np.ndarray:
        """(contexts, 3) True where the context's player may take fold / call / raise."""
        out = np.zeros((len(self.context_names), 3), dtype=bool)
        for b in self.game.blocks:
            out[self.context[b.node], list(b.letters)] = True
        return out

    # --- what is played ------------------------------------------------------------------

    def view(self, opponent: str) -> StrategyView:
        """The strategy we play against ``opponent`` now."""
        return self._views.get(opponent, self.base_view)

    def p_of(self, opponent: str) -> float:
        obs = self._obs.get(opponent)
        if obs is None:
            return 0.0
        s = self.settings
        return s.p_max * obs.hands / (obs.hands + s.confidence_hands)

    # --- learning --------------------------------------------------------------------------

    def observe(self, record: HandRecord, me: str, background: bool = False) -> bool:
        """Count a finished heads-up hand's actions of the opponent; solve the response
        again when it is due (on a thread of its own with ``background``, when no solve
        is running yet). True when a solve was done or started."""
        names = [s.player for s in record.seats]
        if len(names) != 2 or me not in names:
            return False
        opponent = names[1 - names.index(me)]
        obs = self._obs.get(opponent)
        if obs is None:
            obs = self._obs[opponent] = _Observations(next_solve=self.settings.min_hands)
        button = next(s.player for s in record.seats if s.position == len(record.seats))
        seat = 0 if opponent == button else 1
        tree = self.game.tree
        rounds: list[str] = []
        current = -1
        for a in record.actions:
            letter = _LETTER_OF_KIND.get(a.kind)
            if letter is None:
                continue
            while current < a.round:
                rounds.append("")
                current += 1
            if a.player == opponent:
                node = tree.node_of.get("/".join(rounds))
                if node is None:
                    return False  # not the abstract game's betting: nothing to learn from
                row = obs.counts.get(node)
                if row is None:
                    row = obs.counts[node] = np.zeros(3)
                row[ACTION_LETTERS.index(letter)] += 1.0
            rounds[-1] += letter
        obs.hands += 1
        shown = next((s.cards for s in record.shown if s.player == opponent), None)
        if shown is not None and len(shown) == 2 and len(record.board) == 5:
            obs.showdowns.append((seat, "/".join(rounds), tuple(shown), tuple(record.board)))
            del obs.showdowns[:-self.settings.showdowns_kept]
        if obs.hands >= obs.next_solve:
            if background:
                if self._solving is not None and self._solving.is_alive():
                    return False  # the next hand tries again
                obs.next_solve = obs.hands + min(obs.hands, self.settings.max_interval)
                # The thread reads a copy: this one goes on counting the next hands.
                seen = _Observations({n: c.copy() for n, c in obs.counts.items()}, obs.hands,
                                     list(obs.showdowns), obs.next_solve)
                self._solving = threading.Thread(target=self.solve, args=(opponent, seen), name="poki-response",
                                                 daemon=True)
                self._solving.start()
                return True
            obs.next_solve = obs.hands + min(obs.hands, self.settings.max_interval)
            self.solve(opponent)
            return True
        return False

    def model(self, opponent: str, seen: _Observations | None = None) -> np.ndarray:
        """The opponent's model as an abstract strategy (module docstring), from what was
        seen of it (default: everything so far). ``last_significant[opponent]``: the
        contexts in which it differs from an equilibrium player."""
        obs = seen or self._obs[opponent]
        s = self.settings
        counts = np.zeros((len(self.context_names), 3))
        expected = np.zeros((len(self.context_names), 3))
        tested = np.zeros((len(self.context_names), 3))  # expected, rare actions floored (the test's)
        for node, row in obs.counts.items():
            c = self.context[node]
            counts[c] += row
            expected[c] += row.sum() * self.node_freq[node]
            tested[c] += row.sum() * self._floored(node)
        n_seen = counts.sum(axis=1, keepdims=True)
        # An equilibrium player's frequencies on the nodes seen (the self-play's where none).
        base = np.where(n_seen > 0, expected / np.where(n_seen > 0, n_seen, 1.0), self.prior)
        freq = (s.prior_strength * base + counts) / (s.prior_strength + n_seen)
        significant = self._significant(counts, tested)
        self.last_significant[opponent] = [self.context_names[c] for c in np.nonzero(significant)[0]]
        tilted = self._tilt(freq, obs.counts, significant)
        eps = self._fit_eps(obs, tilted, freq) if significant.any() else 0.0
        self.last_eps[opponent] = eps
        if eps <= 0.0:
            return tilted
        out = tilted.copy()
        for b in self.game.blocks:
            c = self.context[b.node]
            if not significant[c]:
                continue
            blind = freq[c, list(b.letters)]
            blind = blind / blind.sum()
            block = b.rows(out)
            block *= 1.0 - eps
            block += eps * blind[None, :].astype(np.float32)
        return out

    def _floored(self, node: int) -> np.ndarray:
        """The node's equilibrium frequencies with each legal action at 0.5% at least: the
        test's expected counts, so that an action the abstract game's self-play never
        takes at a node, seen once, is not read as a different player (the real deals
        reach a node with other bucket sequences than the abstract game's chance)."""
        cached = self._floor_cache.get(node)
        if cached is None:
            legal = list(self.game.block_of[node].letters)
            row = np.zeros(3)
            row[legal] = np.maximum(self.node_freq[node][legal], 0.005)
            cached = self._floor_cache[node] = row / row.sum()
        return cached

    def _significant(self, counts: np.ndarray, expected: np.ndarray) -> np.ndarray:
        """Per context: do the opponent's actions there differ from what an equilibrium
        player would have done at the same nodes? The likelihood-ratio (G) test of the
        counts against the expected counts, chi-square with df = the context's actions - 1,
        each context tested at ``significance`` / the contexts tested (Bonferroni: against
        an equilibrium player the chance that any context is flagged at one solve is at
        most ``significance``)."""
        tested = [c for c in range(len(self.context_names))
                  if counts[c].sum() >= 5 and int(self._legal[c].sum()) >= 2]
        out = np.zeros(len(self.context_names), dtype=bool)
        if not tested:
            return out
        alpha = self.settings.significance / len(tested)
        critical = {1: NormalDist().inv_cdf(1.0 - alpha / 2.0) ** 2, 2: -2.0 * math.log(alpha)}
        for c in tested:
            legal = np.nonzero(self._legal[c])[0]
            o = counts[c, legal]
            e = np.maximum(expected[c, legal], 1e-12)
            stat = 2.0 * float(np.sum(np.where(o > 0, o * np.log(np.where(o > 0, o, 1.0) / e), 0.0)))
            out[c] = stat > critical[legal.size - 1]
        return out

    def _tilt(self, freq: np.ndarray, counts: dict, significant: np.ndarray) -> np.ndarray:
        """The equilibrium tilted, in each ``significant`` context, to the frequencies
        ``freq`` (contexts, 3) over the nodes seen (each weighted by its count)."""
        game = self.game
        out = self.equilibrium.copy()
        floor = 1e-3
        by_context: dict[int, list[int]] = {}
        for n in self._reach.actor:
            by_context.setdefault(int(self.context[n]), []).append(n)
        for c, nodes in by_context.items():
            if not significant[c]:
                continue
            legal = np.nonzero(self._legal[c])[0]
            k = legal.size
            target = freq[c, legal] / freq[c, legal].sum()
            blocks = []
            weights = []
            for n in nodes:
                blocks.append(np.asarray(game.block_of[n].rows(self.equilibrium), dtype=np.float64))
                own = self._reach.actor[n].astype(np.float64)
                total = own.sum()
                weights.append(own / total * counts[n].sum() if n in counts and total > 0 else own * 0.0)
            base = np.concatenate(blocks)
            base = (base + floor) / (1.0 + k * floor)
            w = np.concatenate(weights)
            if w.sum() <= 0:
                continue
            w = w / w.sum()
            theta = np.zeros(k)
            for _ in range(30):
                tilted = base * np.exp(theta)[None, :]
                tilted /= tilted.sum(axis=1, keepdims=True)
                current = w @ tilted
                step = np.log(np.maximum(target, 1e-9) / np.maximum(current, 1e-12))
                theta += step
                if np.abs(step).max() < 1e-4:
                    break
            tilted = base * np.exp(theta)[None, :]
            tilted /= tilted.sum(axis=1, keepdims=True)
            row = 0
            for n in nodes:
                block = game.block_of[n]
                block.rows(out)[:] = tilted[row:row + block.sequences]
                row += block.sequences
        return out

    def _fit_eps(self, obs: _Observations, tilted: np.ndarray, freq: np.ndarray) -> float:
        """The card-blind share ε that makes the opponent's shown-down actions likeliest
        under (1 - ε) tilted + ε card-blind, with a Beta(1, 9) prior (mean 0.1)."""
        if not obs.showdowns:
            return 0.0
        game = self.game
        t = game.tree
        model_p: list[float] = []
        blind_p: list[float] = []
        for seat, betting, hole, board in obs.showdowns:
            rounds = betting.split("/")
            seqs = {}
            prefix: list[str] = []
            for rnd, letters in enumerate(rounds):
                for i, letter in enumerate(letters):
                    node = t.node_of.get("/".join(prefix + [letters[:i]]))
                    if node is None or int(t.actor[node]) != seat:
                        continue
                    if rnd not in seqs:
                        seqs[rnd] = game.abstraction.sequence_of(hole, board, rnd)
                    block = game.block_of[node]
                    kid_letters = list(block.letters)
                    a = kid_letters.index(ACTION_LETTERS.index(letter))
                    model_p.append(float(block.rows(tilted)[seqs[rnd], a]))
                    blind = freq[self.context[node], kid_letters]
                    blind_p.append(float(blind[a] / blind.sum()))
                prefix.append(letters)
        if not model_p:
            return 0.0
        mp = np.array(model_p)
        bp = np.array(blind_p)
        grid = np.linspace(0.0, 1.0, 101)
        loglik = np.log(np.maximum((1.0 - grid)[:, None] * mp[None, :] + grid[:, None] * bp[None, :], 1e-300)).sum(axis=1)
        loglik += 8.0 * np.log(np.maximum(1.0 - grid, 1e-300))  # Beta(1, 9) prior
        return float(grid[int(np.argmax(loglik))])

    def solve(self, opponent: str, seen: _Observations | None = None) -> None:
        """The p-restricted response to the opponent's model, in both seats."""
        obs = seen or self._obs[opponent]
        s = self.settings
        p = s.p_max * obs.hands / (obs.hands + s.confidence_hands)
        self.last_p[opponent] = p
        if p <= 0.0:
            self._views.pop(opponent, None)
            return
        model = self.model(opponent, obs)
        if not self.last_significant[opponent]:
            self._views.pop(opponent, None)  # no evidence against the equilibrium: play it
            return
        game = self.game
        solver = self._solver
        if solver is None:
            solver = self._solver = game.solver()
        warm = self._warm_regrets()
        response = np.empty(game.size, dtype=np.float32)
        seat_of_entry = game.seat_of_entry()
        for model_seat in (0, 1):
            solver.set_state(warm, np.zeros(game.size))
            solver.iterate(self.settings.iterations, 1, 0, 1, model, p, model_seat)
            average = game.normalise(solver.sums)
            ours = seat_of_entry == 1 - model_seat
            response[ours] = average[ours]
        self.solves += 1
        self._views[opponent] = StrategyView(game, response)

    def _warm_regrets(self) -> np.ndarray:
        cached = getattr(self, "_warm", None)
        if cached is not None:
            return cached
        warm = np.zeros(self.game.size, dtype=np.float32)
        scale = self.settings.warm_start
        for b in self.game.blocks:
            warm[b.lo:b.hi] = self.equilibrium[b.lo:b.hi] * np.float32(scale * self._reach.other[b.node])
        self._warm = warm
        return warm

    def stats(self, opponent: str) -> dict:
        obs = self._obs.get(opponent)
        return {"hands": obs.hands if obs else 0, "p": self.last_p.get(opponent, 0.0),
                "eps": self.last_eps.get(opponent, 0.0), "solves": self.solves}
