"""Re-solving the river during play: heads-up Poki's river strategy solved exactly, with
no card abstraction, from the blueprint's ranges, safely.

**The subgame.** At the first river decision of a hand the river betting is solved from
the river's first node: the betting is the abstract game's tree below that node
(agent.engine.equilibrium.BettingTree, the one betting tree the blueprint is played on:
check, bet, at most four bets; agent.engine.heads_up.check_structure has already checked
the table plays that structure), the cards are the real ones: every holding of each
player that does not touch the board (1,081), exact card removal between the two
holdings. The solve reads public information only (the board, the betting, the
blueprint), so it gives a strategy for every holding of ours, of which our cards read one
row; a local best response that replicates Poki (agent.engine.lbr) can compute the same.

**The ranges.** Each player's range at the river's start is uniform over the holdings
that do not touch the board times, for each action it took before the river, the
blueprint's probability of that action at the holding's bucket (Bayes:
agent.engine.lbr.range_of).

**Safety.** Re-solving with the opponent's range held fixed can be exploited: the
opponent may reach the river with other holdings than the blueprint's. The re-solving
gadget of Burch, Johanson and Bowling ("Solving imperfect information games using
decomposition", AAAI 2014; CFR-D; ``[cfrd-2014]`` in docs/references.md) removes that: at the subgame's root the opponent picks,
for each of its holdings, either to enter the subgame or to take that holding's
counterfactual best-response value against the blueprint's river (our range as above;
the best response, not the blueprint's own play, since the blueprint is no equilibrium of
the real river: its own values would be a bound the blueprint itself breaks). An
equilibrium of the gadget game gives every opponent holding at most that value, so the
re-solved river gives up no more than the blueprint did (Brown and Sandholm, "Safe and nested subgame solving
for imperfect-information games", NIPS 2017, ``[safe-2017]``, call it Resolve). The gadget's chance
weights are the opponent's Bayes range mixed with ``floor`` of the uniform one, so every
holding (also one the blueprint would not have brought here) is protected.

**Solving.** CFR+ (Tammelin 2014) vectorised over holdings with numpy, the players
updated in turn, the average weighted by the iteration number. A showdown's value
for every holding is O(n) after one sort by hand rank per board: the opponent's weight
below and above each holding by cumulative sums, and the weight of holdings sharing one of
its cards by the same sums within each card's own holdings. Amounts are in small bets,
counted from the start of the hand (what a fold loses, what a showdown wins).

**The budget.** ``iterations`` per solve, and a wall-clock ``deadline_s``: a solve that
crosses it is abandoned and the blueprint's river is played for that hand (counted in
``fallbacks``).
"""
from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

import evaluator_pyx as ev
from agent.engine.equilibrium import BettingTree
from agent.engine.heads_up import StrategyView

if TYPE_CHECKING:
    from agent.game.context import GameContext

__all__ = ["ResolveSettings", "ResolvedView", "RiverResolver", "RiverSolution", "RiverSolver", "RiverSubgame",
           "blueprint_strategy", "exploitability"]

_DECISION, _FOLD, _SHOWDOWN = 0, 1, 2
_HOLDING_CARDS = np.array(ev.HOLDING_CARDS, dtype=np.int64)  # (1326, 2)


@dataclass(frozen=True)
class ResolveSettings:
    """The re-solver's budget (module docstring)."""

    iterations: int = 30  # about 53 ms of one core's time a solve (docs/lab/strength.md, river_times.py)
    deadline_s: float = 1.0  # a solve longer than this is abandoned: the blueprint plays
    floor: float = 0.05  # the uniform share of the gadget's chance weights


def _total(vectors: list[np.ndarray]) -> np.ndarray:
    out = vectors[0].copy()
    for v in vectors[1:]:
        out += v
    return out


class RiverSubgame:
    """The river betting below ``root`` of ``tree`` on ``board`` (five cards), with the
    showdown's sort of the holdings that do not touch the board."""

    def __init__(self, tree: BettingTree, root: int, board: Sequence[int]) -> None:
        if len(board) != 5:
            raise ValueError(f"a river subgame needs five board cards, got {len(board)}")
        if int(tree.kind[root]) != _DECISION or int(tree.round[root]) != 3:
            raise ValueError(f"node {root} is not a river decision")
        self.tree = tree
        self.root = root
        self.board = tuple(board)
        nodes: list[int] = []
        stack = [root]
        while stack:  # pre-order: a parent before its children
            n = stack.pop()
            nodes.append(n)
            first, k = int(tree.first[n]), int(tree.n_child[n])
            stack.extend(int(c) for c in reversed(tree.children[first:first + k]))
        self.nodes = nodes
        self.decisions = [n for n in nodes if int(tree.kind[n]) == _DECISION]
        self.folds = [n for n in nodes if int(tree.kind[n]) == _FOLD]
        self.showdowns = [n for n in nodes if int(tree.kind[n]) == _SHOWDOWN]
        self.kids = {n: [int(c) for c in tree.children[int(tree.first[n]):int(tree.first[n]) + int(tree.n_child[n])]]
                     for n in self.decisions}
        board_mask = np.uint64(ev.cards_to_mask(self.board))
        self.holdings = np.nonzero((ev.HOLDINGS_ARRAY & board_mask) == 0)[0]  # indices into the 1326
        n = self.n = len(self.holdings)
        cards = _HOLDING_CARDS[self.holdings]
        values = np.asarray(ev.holding_values(int(board_mask)), dtype=np.int64)[self.holdings]
        # All holdings by rank: a holding's ties are sorted positions tie_lo .. tie_hi - 1.
        order = np.argsort(values, kind="stable")
        ranked = values[order]
        self.order = order
        self.tie_lo = np.searchsorted(ranked, values, side="left")
        self.tie_hi = np.searchsorted(ranked, values, side="right")
        # Slots: each holding twice, once under each of its cards, sorted by (card, rank).
        slot_card = cards.reshape(-1)
        slot_hand = np.repeat(np.arange(n), 2)
        key = slot_card * 10000 + values[slot_hand]
        sorder = np.lexsort((values[slot_hand], slot_card))
        skey = key[sorder]
        scard = slot_card[sorder]
        self.slot_hand = slot_hand[sorder]
        slot_pos = np.empty(2 * n, dtype=np.int64)
        slot_pos[sorder] = np.arange(2 * n)
        self.slot_of = slot_pos.reshape(n, 2)  # each holding's two slots
        self.slot_tie_lo = np.searchsorted(skey, skey, side="left")
        self.slot_tie_hi = np.searchsorted(skey, skey, side="right")
        self.slot_seg_lo = np.searchsorted(scard, scard, side="left")
        self.slot_seg_hi = np.searchsorted(scard, scard, side="right")

    def restrict(self, weights1326: np.ndarray) -> np.ndarray:
        """A 1326-holding weight vector on this subgame's holdings."""
        return np.asarray(weights1326, dtype=np.float64)[self.holdings]

    # --- terminal values ------------------------------------------------------------------

    def unblocked(self, q: np.ndarray) -> np.ndarray:
        """(T, n): for each holding, the total of each row of ``q`` (T, n) over the
        holdings sharing no card with it."""
        t, n = q.shape
        # Each card's total by cumulative sums over the slots (no BLAS: one core, small rows).
        ss = np.zeros((t, 2 * n + 1))
        np.cumsum(np.take(q, self.slot_hand, axis=1), axis=1, out=ss[:, 1:])
        card_total = np.take(ss, self.slot_seg_hi, axis=1)
        card_total -= np.take(ss, self.slot_seg_lo, axis=1)
        out = q - np.take(card_total, self.slot_of[:, 0], axis=1)
        out -= np.take(card_total, self.slot_of[:, 1], axis=1)
        out += q.sum(axis=1)[:, None]
        return out

    def showdown(self, q: np.ndarray) -> np.ndarray:
        """(T, n): for each holding, the weight of ``q``'s (T, n) rows it beats minus
        the weight it loses to, over the holdings sharing no card with it."""
        t, n = q.shape
        cs = np.zeros((t, n + 1))
        np.cumsum(np.take(q, self.order, axis=1), axis=1, out=cs[:, 1:])
        # below - above = cs[lo] - (cs[n] - cs[hi])
        net = np.take(cs, self.tie_lo, axis=1)
        net += np.take(cs, self.tie_hi, axis=1)
        net -= cs[:, n:]
        ss = np.zeros((t, 2 * n + 1))
        np.cumsum(np.take(q, self.slot_hand, axis=1), axis=1, out=ss[:, 1:])
        slot_net = np.take(ss, self.slot_tie_lo, axis=1)
        slot_net -= np.take(ss, self.slot_seg_lo, axis=1)
        slot_net -= np.take(ss, self.slot_seg_hi, axis=1)
        slot_net += np.take(ss, self.slot_tie_hi, axis=1)
        net -= np.take(slot_net, self.slot_of[:, 0], axis=1)
        net -= np.take(slot_net, self.slot_of[:, 1], axis=1)
        return net

    def terminal_values(self, reach: dict[int, tuple[np.ndarray, np.ndarray]],
                        players: tuple[int, ...] = (0, 1)) -> dict[int, list[np.ndarray]]:
        """Each terminal's counterfactual values of ``players`` (their values weighted by
        the other's reach there; a list indexed by player, the others' entries empty)."""
        tree = self.tree
        empty = np.zeros(0)
        out: dict[int, list[np.ndarray]] = {}
        if self.folds:
            free = self.unblocked(np.stack([reach[t][1 - p] for t in self.folds for p in players]))
            for i, t in enumerate(self.folds):
                amount = float(tree.amount[t])
                folder = int(tree.actor[t])
                row = [empty, empty]
                for j, p in enumerate(players):
                    row[p] = (amount if p != folder else -amount) * free[len(players) * i + j]
                out[t] = row
        if self.showdowns:
            net = self.showdown(np.stack([reach[t][1 - p] for t in self.showdowns for p in players]))
            for i, t in enumerate(self.showdowns):
                amount = float(tree.amount[t])
                row = [empty, empty]
                for j, p in enumerate(players):
                    row[p] = amount * net[len(players) * i + j]
                out[t] = row
        return out

    # --- walks ----------------------------------------------------------------------------

    def evaluate(self, strategy: dict[int, np.ndarray], reach0: np.ndarray, reach1: np.ndarray,
                 best_responder: int = -1) -> tuple[np.ndarray, np.ndarray]:
        """Both players' counterfactual values at the root (per holding) when they play
        ``strategy`` (node -> (actions, n)) from the root reaches; with
        ``best_responder`` 0 or 1, that player instead plays a best response (its values
        are then the best response's)."""
        reach = self.reaches(strategy, reach0, reach1)
        values = self.terminal_values(reach)
        tree = self.tree
        for n in reversed(self.decisions):
            actor = int(tree.actor[n])
            kids = self.kids[n]
            s = strategy[n]
            v = [np.zeros(self.n), np.zeros(self.n)]
            if actor == best_responder:
                v[actor] = np.max(np.stack([values[c][actor] for c in kids]), axis=0)
            else:
                v[actor] = _total([s[i] * values[c][actor] for i, c in enumerate(kids)])
            v[1 - actor] = _total([values[c][1 - actor] for c in kids])
            values[n] = v
        return values[self.root][0], values[self.root][1]

    def reaches(self, strategy: dict[int, np.ndarray], reach0: np.ndarray,
                reach1: np.ndarray) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        tree = self.tree
        reach = {self.root: (reach0, reach1)}
        for n in self.decisions:
            r0, r1 = reach[n]
            actor = int(tree.actor[n])
            s = strategy[n]
            for i, c in enumerate(self.kids[n]):
                reach[c] = (r0 * s[i], r1) if actor == 0 else (r0, r1 * s[i])
        return reach


@dataclass
class RiverSolution:
    """A solved river: the average strategy of every decision node of the subgame
    (node -> (actions, holdings), columns over ``subgame.holdings``), the iterations done."""

    subgame: RiverSubgame
    strategy: dict[int, np.ndarray]
    iterations: int
    seconds: float
    ranges: tuple[np.ndarray, np.ndarray]  # both seats' Bayes ranges at the river's start


class RiverSolver:
    """CFR+ on a river subgame with the re-solving gadget for ``opponent`` (module
    docstring). ``gadget_values`` None solves with both ranges fixed (no gadget)."""

    def __init__(self, subgame: RiverSubgame, ranges: tuple[np.ndarray, np.ndarray], opponent: int,
                 gadget_values: np.ndarray | None = None) -> None:
        self.g = subgame
        self.ranges = (np.asarray(ranges[0], dtype=np.float64), np.asarray(ranges[1], dtype=np.float64))
        self.opponent = opponent
        self.gadget_values = gadget_values
        tree = subgame.tree
        self.regrets = {n: np.zeros((len(subgame.kids[n]), subgame.n)) for n in subgame.decisions}
        self.sums = {n: np.zeros((len(subgame.kids[n]), subgame.n)) for n in subgame.decisions}
        self.enter_regret = np.zeros((2, subgame.n))  # the gadget: enter, take the blueprint's value
        self.enter_sum = np.zeros(subgame.n)
        self.t = 0
        self._actor = {n: int(tree.actor[n]) for n in subgame.decisions}

    def _current(self, n: int) -> np.ndarray:
        r = self.regrets[n]
        tot = r.sum(axis=0)
        k = r.shape[0]
        return np.where(tot > 0, r / np.where(tot > 0, tot, 1.0), 1.0 / k)

    def _enter(self) -> np.ndarray:
        r = self.enter_regret
        tot = r[0] + r[1]
        return np.where(tot > 0, r[0] / np.where(tot > 0, tot, 1.0), 1.0)

    def root_reaches(self, enter: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The root's reaches: ours our range, the opponent's its gadget weight times its
        probability of entering."""
        r = [self.ranges[0], self.ranges[1]]
        if self.gadget_values is not None:
            r[self.opponent] = r[self.opponent] * (self._enter() if enter is None else enter)
        return r[0], r[1]

    def iterate(self, iterations: int, deadline: float | None = None) -> bool:
        """CFR+ iterations, the players updated in turn (the opponent's pass also updates
        the gadget); False, with an iteration left undone, when it would end past
        ``deadline`` (time.perf_counter; the next iteration taken to last as long as the
        longest so far)."""
        longest = 0.0
        for _ in range(iterations):
            start = time.perf_counter()
            if deadline is not None and start + longest > deadline:
                return False
            self.t += 1
            for p in (0, 1):
                self._pass(p)
            longest = max(longest, time.perf_counter() - start)
        return True

    def _pass(self, p: int) -> None:
        g = self.g
        strategy = {n: self._current(n) for n in g.decisions}
        r0, r1 = self.root_reaches()
        reach = g.reaches(strategy, r0, r1)
        values = {t: v[p] for t, v in g.terminal_values(reach, (p,)).items()}
        for n in reversed(g.decisions):
            kids = g.kids[n]
            if self._actor[n] != p:
                values[n] = _total([values[c] for c in kids])
                continue
            s = strategy[n]
            child = np.stack([values[c] for c in kids])
            mine = (s * child).sum(axis=0)
            values[n] = mine
            regrets = self.regrets[n]
            regrets += child
            regrets -= mine
            np.maximum(regrets, 0.0, out=regrets)
            self.sums[n] += (self.t * reach[n][p]) * s
        if p == self.opponent and self.gadget_values is not None:
            enter = self._enter()
            v_enter = values[g.root]
            v_take = self.gadget_values
            v = enter * v_enter + (1.0 - enter) * v_take
            self.enter_regret[0] = np.maximum(self.enter_regret[0] + v_enter - v, 0.0)
            self.enter_regret[1] = np.maximum(self.enter_regret[1] + v_take - v, 0.0)
            self.enter_sum += self.t * self.ranges[self.opponent] * enter

    def average(self) -> dict[int, np.ndarray]:
        out = {}
        for n, s in self.sums.items():
            tot = s.sum(axis=0)
            out[n] = np.where(tot > 0, s / np.where(tot > 0, tot, 1.0), 1.0 / s.shape[0])
        return out


def blueprint_strategy(subgame: RiverSubgame, view: StrategyView) -> dict[int, np.ndarray]:
    """The blueprint's river strategy on the subgame's holdings (node -> (actions, holdings))."""
    return {n: np.ascontiguousarray(view.all_holdings(n, subgame.board)[subgame.holdings].T, dtype=np.float64)
            for n in subgame.decisions}


def exploitability(subgame: RiverSubgame, strategy: dict[int, np.ndarray], ranges: tuple[np.ndarray, np.ndarray]) -> float:
    """How much the two best responses to ``strategy`` win in the subgame with the root
    ranges fixed (0 at an equilibrium), in small bets per unit of joint range weight."""
    br0, _ = subgame.evaluate(strategy, ranges[0], ranges[1], best_responder=0)
    _, br1 = subgame.evaluate(strategy, ranges[0], ranges[1], best_responder=1)
    norm = float(ranges[0] @ subgame.unblocked(ranges[1][None, :])[0])
    return float(ranges[0] @ br0 + ranges[1] @ br1) / norm if norm > 0 else 0.0


class ResolvedView(StrategyView):
    """A strategy view whose river, below the solved node, is a re-solved one."""

    def __init__(self, base: StrategyView, solution: RiverSolution) -> None:
        super().__init__(base.game, base.policy)
        self.solution = solution
        self._row = np.full(ev.N_HOLDINGS, -1, dtype=np.int64)
        self._row[solution.subgame.holdings] = np.arange(solution.subgame.n)

    def probabilities(self, node: int, hole: Sequence[int], board: Sequence[int]) -> np.ndarray:
        s = self.solution.strategy.get(node)
        if s is None or tuple(board) != self.solution.subgame.board:
            return super().probabilities(node, hole, board)
        row = int(self._row[ev.holding_index_of_cards(hole[0], hole[1])])
        return s[:, row].astype(np.float32)

    def all_holdings(self, node: int, board: Sequence[int]) -> np.ndarray:
        s = self.solution.strategy.get(node)
        if s is None or tuple(board) != self.solution.subgame.board:
            return super().all_holdings(node, board)
        out = np.zeros((ev.N_HOLDINGS, s.shape[0]), dtype=np.float64)
        out[self.solution.subgame.holdings] = s.T
        return out


class RiverResolver:
    """Re-solves a hand's river once, at its first river decision, and keeps the
    solution for the hand's other river decisions. ``solves``, ``fallbacks`` (solves
    abandoned at the deadline), ``seconds`` (the latest solves' times) are counted."""

    def __init__(self, settings: ResolveSettings | None = None) -> None:
        self.settings = settings or ResolveSettings()
        self.solves = 0
        self.fallbacks = 0
        self.seconds: deque[float] = deque(maxlen=10_000)  # the latest solves' times: a bot runs for months
        self._key: tuple | None = None
        self._view: StrategyView | None = None

    def describe(self) -> str:
        s = self.settings
        return (f"river re-solving ({s.iterations} CFR+ iterations, deadline {s.deadline_s:g} s): "
                f"{self.solves} solves, {self.fallbacks} fallbacks to the blueprint")

    def at(self, base: StrategyView, ctx: GameContext, player: str, budget_s: float | None = None) -> StrategyView:
        """The strategy ``player`` plays at the decision ``ctx``: ``base`` before the
        river, on the river ``base`` with ``player``'s river re-solved (``view``)."""
        if ctx.round != 3:
            return base
        return self.view(base, ctx.history, ctx.board, ctx.players, ctx.players[ctx.button], player,
                         key=ctx.hand_id, budget_s=budget_s)

    def view(self, base: StrategyView, history: tuple, board: Sequence[int], players: Sequence[str],
             button: str, player: str, key: object = None, budget_s: float | None = None) -> StrategyView:
        """The strategy ``player`` plays on this river: ``base`` with ``player``'s river
        re-solved below the river's first node (``history`` the hand's, rounds up to the
        river; ``players`` the two, ``button`` one of them). The same hand (``key``, the
        board and the betting before the river) reuses its solution; a solve that would
        end past the deadline (``deadline_s``, or ``budget_s`` when smaller: a seat's share
        of its own deadline) gives ``base`` (counted)."""
        from agent.engine.heads_up import betting_string
        from agent.engine.lbr import range_of

        pre = tuple(history[:3])
        prefix = betting_string(pre) + "/"
        ident = (key, tuple(board), prefix, id(base), player)
        if ident == self._key and self._view is not None:
            return self._view
        tree = base.game.tree
        root = tree.node_of.get(prefix)
        if root is None:
            raise ValueError(f"betting {prefix!r} is not a river's first node of the abstract game")
        t0 = time.perf_counter()
        subgame = RiverSubgame(tree, root, board)
        seat_of = {p: (0 if p == button else 1) for p in players}
        board_mask = ev.cards_to_mask(tuple(board))
        ranges = [np.zeros(subgame.n), np.zeros(subgame.n)]
        for p in players:
            ranges[seat_of[p]] = subgame.restrict(range_of(base, pre, tuple(board), p, board_mask))
        limit = self.settings.deadline_s if budget_s is None else min(self.settings.deadline_s, budget_s)
        view = self.solve_view(base, subgame, (ranges[0], ranges[1]), seat_of[player], t0, t0 + limit)
        self._key, self._view = ident, view
        return view

    def solve_view(self, base: StrategyView, subgame: RiverSubgame, ranges: tuple[np.ndarray, np.ndarray],
                   us: int, t0: float, deadline: float) -> StrategyView:
        """``base`` with seat ``us``'s river re-solved, with the gadget for the other seat
        (``t0`` when the decision began); ``base`` itself when the solve would end past
        ``deadline`` (time.perf_counter) or our range is empty
        (the blueprint would not be here: nothing to re-solve from); both counted."""
        s = self.settings
        them = 1 - us
        if ranges[us].sum() <= 0:
            self.fallbacks += 1
            return base
        blueprint = blueprint_strategy(subgame, base)
        # What each opponent holding wins at most against our blueprint river (our range).
        cfv = subgame.evaluate(blueprint, ranges[0], ranges[1], best_responder=them)[them]
        theirs = ranges[them]
        weights = theirs / theirs.sum() if theirs.sum() > 0 else np.full(subgame.n, 1.0 / subgame.n)
        gadget = [ranges[0], ranges[1]]
        gadget[them] = (1.0 - s.floor) * weights + s.floor / subgame.n
        solver = RiverSolver(subgame, (gadget[0], gadget[1]), them, cfv)
        if not solver.iterate(s.iterations, deadline):
            self.fallbacks += 1
            self.seconds.append(time.perf_counter() - t0)
            return base
        avg = solver.average()
        mine = {n: avg[n] for n in subgame.decisions if int(subgame.tree.actor[n]) == us}
        self.solves += 1
        seconds = time.perf_counter() - t0
        self.seconds.append(seconds)
        return ResolvedView(base, RiverSolution(subgame, mine, solver.t, seconds, ranges))
