"""The heads-up abstract game and its CFR+ solver (agent.engine.equilibrium,
agent.engine._cfr): the betting tree against the rules engine, the vectorised values and
best responses against a plain recursion over both players' bucket sequences, CFR+
convergence, both cores giving the same result as one, resuming, restricted Nash
responses, and the strategy file's checksum."""
from __future__ import annotations

import numpy as np
import pytest

from agent.config import TableConfig
from agent.engine import abstraction as ab
from agent.engine.equilibrium import (
    AbstractGame,
    EquilibriumError,
    StrategyFile,
    Trainer,
    betting_tree,
    chance_from_checkpoint,
)
from agent.engine.heads_up import betting_string
from agent.game.rules import Action
from agent.play.deals import Deal
from agent.play.offline.dealer import Dealer
from agent.players import Player

LETTER = {Action.FOLD: "f", Action.CHECK_CALL: "c", Action.BET_RAISE: "r"}


@pytest.fixture(scope="module")
def tiny() -> AbstractGame:
    # Two buckets pre-flop and on the river, one in between: 4 sequences a player.
    return AbstractGame(ab.measure((2, 1, 1, 2), 6, seed=3, turns=1, rivers=2, with_flop_table=False))


@pytest.fixture(scope="module")
def small() -> AbstractGame:
    return AbstractGame(ab.measure((2, 2, 2, 2), 8, seed=4, turns=2, rivers=2, with_flop_table=False))


def test_tree_has_the_betting_of_heads_up_limit():
    t = betting_tree()
    decisions = t.kind == 0
    assert decisions.sum() == 6378
    assert [int((decisions & (t.round == r)).sum()) for r in range(4)] == [8, 70, 630, 5670]
    assert int((t.kind == 2).sum()) == 5103 and int((t.kind == 3).sum()) == 7 + 63 + 567


class _Script(Player):
    """Plays the letters of a betting string and checks, at each turn, that the rules'
    legal moves are the tree's moves at the node the hand has reached."""

    def __init__(self, name, tree, script):
        self.name, self.tree, self.script, self.i = name, tree, script, 0

    def act(self, ctx):
        node = self.tree.node_of[betting_string(ctx.history)]
        lo = int(self.tree.first[node])
        kids = self.tree.children[lo:lo + int(self.tree.n_child[node])]
        assert sorted("fcr"[self.tree.action[k]] for k in kids) == sorted(LETTER[a] for a in ctx.legal_actions)
        seat = 0 if ctx.players.index(self.name) == ctx.button else 1
        assert int(self.tree.actor[node]) == seat
        letter = self.script[0][self.script[1]]
        self.script[1] += 1
        return {"f": Action.FOLD, "c": Action.CHECK_CALL, "r": Action.BET_RAISE}[letter]


@pytest.mark.slow
def test_every_terminal_history_is_played_by_the_rules_engine_with_the_trees_amounts():
    # Each fold and showdown of the tree, played through the dealer (the rules engine,
    # checked elsewhere against PokerKit): the moves it allows are the tree's, and what
    # each player puts in is the tree's amount (in small bets of 10 chips).
    t = betting_tree()
    table = TableConfig(seats=2, small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4,
                        starting_stack=1000)
    dealer = Dealer(table)
    deal = Deal(((0, 1), (2, 3)), (20, 30, 40, 50, 44))
    terminals = np.nonzero((t.kind == 1) | (t.kind == 2))[0]
    for n in terminals:
        letters = t.history[n].replace("/", "")
        shared = [letters, 0]
        players = [_Script("a", t, shared), _Script("b", t, shared)]
        record = dealer.play_hand(players, deal, button=1, hand_id=f"t:{n}")
        assert shared[1] == len(letters)
        put = {r.player: r.put_in for r in record.results}
        if t.kind[n] == 1:
            folder = "b" if t.actor[n] == 0 else "a"  # seat 0 is the button: seat 1 of the table
            assert put[folder] == round(10 * t.amount[n])
        else:
            assert put["a"] == put["b"] == round(10 * t.amount[n])


def _sequences(game):
    b = game.abstraction.buckets
    return [tuple(s) for s in np.ndindex(*b)], game.chance.sequence_probs


def _index(game, seq, rnd):
    i = 0
    for r in range(rnd + 1):
        i = i * game.abstraction.buckets[r] + seq[r]
    return i


def _ref_value(game, policy, br_player=None):
    """Player 0's value (or ``br_player``'s best-response value) by a plain recursion:
    the walker's bucket prefix revealed round by round, the opponent's whole sequences
    weighted by their chance and the opponent's strategy."""
    t = game.tree
    seqs, probs = _sequences(game)
    root, conds = game.chance.conditionals()
    me = 0 if br_player is None else br_player

    def rec(node, prefix, opp):
        kind = int(t.kind[node])
        kids = t.children[int(t.first[node]):int(t.first[node]) + int(t.n_child[node])]
        if kind == 1:
            x = float(t.amount[node]) * (-1 if t.actor[node] == me else 1)
            return x * sum(opp.values())
        if kind == 2:
            return sum(w * float(t.amount[node]) * (2 * float(game.chance.share[prefix[3], s[3]]) - 1) for s, w in opp.items())
        if kind == 3:
            r = int(t.round[kids[0]])
            b = game.abstraction.buckets[r]
            cond = conds[r - 1].reshape(-1, b)[_index(game, prefix, r - 1)]
            return sum(float(cond[x]) * rec(int(kids[0]), prefix + (x,), opp) for x in range(b) if cond[x] > 0)
        rnd = int(t.round[node])
        k = len(kids)
        if int(t.actor[node]) == me:
            row = game.probabilities(policy, node, _index(game, prefix, rnd)).astype(np.float64)
            values = [rec(int(c), prefix, opp) for c in kids]
            if br_player is not None:
                return max(values)
            return sum(p * v for p, v in zip(row, values))
        total = 0.0
        for a, c in enumerate(kids):
            child = {s: w * float(game.probabilities(policy, node, _index(game, s, rnd))[a]) for s, w in opp.items()}
            total += rec(int(c), prefix, child)
        assert k == len(kids)
        return total

    opp0 = {s: float(probs[s]) for s in seqs if probs[s] > 0}
    return sum(float(root[b0]) * rec(0, (b0,), opp0) for b0 in range(game.abstraction.buckets[0]))


def _random_policy(game, seed):
    rng = np.random.default_rng(seed)
    return game.normalise(rng.random(game.size).astype(np.float32) ** 3)


@pytest.mark.slow
def test_vectorised_values_and_best_responses_equal_a_plain_recursion(tiny):
    solver = tiny.solver()
    for seed in (1, 2):
        policy = _random_policy(tiny, seed)
        v0, v1 = solver.profile_values(policy, 1)
        assert v0 == pytest.approx(-v1, abs=1e-9)  # zero-sum
        assert v0 == pytest.approx(_ref_value(tiny, policy), abs=1e-9)
        b0, b1 = solver.best_response_values(policy, 2)
        assert b0 == pytest.approx(_ref_value(tiny, policy, 0), abs=1e-9)
        assert b1 == pytest.approx(_ref_value(tiny, policy, 1), abs=1e-9)
        assert b0 + b1 > 0.0  # a random strategy is exploitable


def test_best_response_strategy_earns_the_best_response_value(small):
    solver = small.solver()
    policy = _random_policy(small, 7)
    value, br = solver.best_response(policy, 1, 2)
    assert value == pytest.approx(solver.best_response_values(policy, 1)[1])
    assert solver.profile_values(br, 1)[1] == pytest.approx(value, rel=1e-6)
    # No other strategy of player 1 does better against player 0 of `policy`.
    rng = np.random.default_rng(3)
    for _ in range(5):
        other = np.where(rng.random(small.size) < 0.5, br, _random_policy(small, int(rng.integers(1 << 30))))
        assert solver.profile_values(small.normalise(other), 1)[1] <= value + 1e-9


@pytest.mark.slow
def test_cfr_plus_drives_exploitability_toward_zero(small):
    trainer = Trainer(small, threads=2)
    rows = []
    trainer.run(400, 100, rows.append)
    expl = [r["exploitability_mbb"] for r in rows]
    # CFR's average strategy converges as O(1/sqrt(T)) or better (CFR+ about O(1/T)):
    # four times the iterations, at least four times closer here.
    assert expl[-1] < expl[0] / 4 and expl[-1] < 10.0
    # The log is the best responses' values: their mean is the exploitability.
    assert all(r["exploitability_mbb"] == pytest.approx((r["br0_mbb"] + r["br1_mbb"]) / 2, abs=1e-3) for r in rows)


def test_two_threads_give_the_same_iterations_as_one(small):
    a, b = small.solver(), small.solver()
    a.iterate(15, 1, 0, 1)
    b.iterate(15, 1, 0, 2)
    assert np.array_equal(a.regrets, b.regrets) and np.array_equal(a.sums, b.sums)


def test_resume_continues_exactly(small, tmp_path):
    whole = Trainer(small, threads=1)
    whole.run(40, 40)
    part = Trainer(small, threads=1)
    part.run(20, 20)
    part.save_checkpoint(tmp_path / "run.ckpt")
    chance = chance_from_checkpoint(tmp_path / "run.ckpt")
    assert chance.digest() == small.chance.digest()
    resumed = Trainer(AbstractGame(chance), threads=1)
    resumed.load_checkpoint(tmp_path / "run.ckpt")
    resumed.run(20, 20)
    assert resumed.iterations == 40
    assert np.array_equal(resumed.solver.regrets, whole.solver.regrets)
    assert np.array_equal(resumed.solver.sums, whole.solver.sums)
    other = Trainer(AbstractGame(ab.measure((2, 2, 2, 2), 8, seed=99, turns=2, rivers=2, with_flop_table=False)))
    with pytest.raises(EquilibriumError, match="another abstraction"):
        other.load_checkpoint(tmp_path / "run.ckpt")


@pytest.mark.slow
def test_restricted_response_moves_from_equilibrium_to_best_response(small):
    # A model that always calls, for player 1. p = 0: the response is an equilibrium
    # strategy; p = 1: a best response to the model. In between its value against the
    # model and its exploitability both grow with p (Johanson et al. 2007, Figure 1).
    model = np.zeros(small.size, dtype=np.float32)
    for b in small.blocks:
        b.rows(model)[:, b.letters.index(1)] = 1.0
    solver = small.solver()
    best_value, _ = solver.best_response(model, 0, 1)
    results = []
    for p in (0.0, 0.5, 1.0):
        s = small.solver()
        s.iterate(150, 1, 0, 2, model, p, 1)
        response = small.normalise(s.sums)
        mixed = np.where(small.seat_of_entry() == 0, response, model)
        vs_model = solver.profile_values(mixed, 1)[0]
        exploit = solver.best_response_values(response, 1)[1]
        results.append((vs_model, exploit))
    assert results[2][0] == pytest.approx(best_value, abs=0.01)
    assert results[0][0] < results[1][0] < results[2][0]
    assert results[0][1] < results[1][1] < results[2][1]


def test_strategy_file_round_trip_and_checksum(small, tmp_path):
    policy = _random_policy(small, 11)
    path = tmp_path / "s.npz"
    checksum = StrategyFile.write(path, small, policy, [{"iterations": 1}])
    read = StrategyFile.read(path)
    assert read.checksum == checksum and len(checksum) == 64
    assert np.abs(read.policy - policy).max() <= 1.0 / 255 + 1e-6
    q = small.quantise(policy)
    assert np.array_equal(small.unquantise(q[small.stored_mask()], small.stored_mask()), q)
    # Damage: one byte of the compressed strategy changed.
    data = dict(np.load(path))
    packed = data["policy_lzma"].copy()
    packed[len(packed) // 2] ^= 0x55
    data["policy_lzma"] = packed
    np.savez(tmp_path / "bad.npz", **data)
    with pytest.raises(EquilibriumError):
        StrategyFile.read(tmp_path / "bad.npz")
    # An edited description.
    import json
    meta = json.loads(str(data["meta"]))
    meta["samples"]["flops"] = 1
    data["policy_lzma"] = np.load(path)["policy_lzma"]
    data["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "edited.npz", **data)
    with pytest.raises(EquilibriumError, match="checksum"):
        StrategyFile.read(tmp_path / "edited.npz")
    with pytest.raises(EquilibriumError, match="no such strategy file"):
        StrategyFile.read(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(EquilibriumError, match="not a strategy file"):
        StrategyFile.read(tmp_path / "junk.npz")


def test_train_cfr_command_trains_resumes_and_refuses_bad_input(tmp_path, capsys):
    import json

    from agent.cli import main

    out = tmp_path / "s.npz"
    ckpt = tmp_path / "run.ckpt"
    log = tmp_path / "log.json"
    args = ["train-cfr", "--buckets", "2,1,1,2", "--flops", "3", "--turns", "1", "--rivers", "2", "--seed", "5",
            "--iterations", "20", "--batch", "10", "--workers", "1", "--threads", "2", "--no-flop-table",
            "--out", str(out), "--checkpoint", str(ckpt), "--log-json", str(log), "--no-progress"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "exploitability mbb/hand" in printed and f"wrote {out}: 20 iterations" in printed
    rows = json.loads(log.read_text())["rows"]
    assert [r["iterations"] for r in rows] == [10, 20]
    first = StrategyFile.read(out)
    assert first.game.abstraction.buckets == (2, 1, 1, 2) and first.meta["iterations"] == 20
    assert main(["train-cfr", "--resume", str(ckpt), "--iterations", "10", "--batch", "10", "--threads", "1",
                 "--out", str(out), "--checkpoint", str(ckpt), "--no-progress"]) == 0
    again = StrategyFile.read(out)
    assert again.meta["iterations"] == 30 and [r["iterations"] for r in again.log] == [10, 20, 30]
    assert again.game.chance.digest() == first.game.chance.digest()
    capsys.readouterr()
    assert main(["train-cfr", "--buckets", "2,2", "--out", str(out)]) == 2
    assert "four numbers" in capsys.readouterr().err
    assert main(["train-cfr", "--resume", str(tmp_path / "none.ckpt"), "--out", str(out)]) == 2
    assert "cannot resume" in capsys.readouterr().err
