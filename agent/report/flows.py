"""Won from / lost to: the chips that moved between each pair of players in one hand,
attributed pot by pot, as FPDB and PokerTracker show a player's results against another.

A hand's pots (main pot first, then the side pots) are those of the rules
(agent.game.showdown.side_pots): one per distinct total put in by a player still in the
hand. Each player's part of a pot is what he put in between the pot's lower and upper
level. Each pot's losers (who put chips in it and took none of it back) pay its winners
in proportion to what each winner gained from it (his share less his part), so a loser
pays every winner the same fraction of what he put in, and in a split pot neither winner
pays the other.

The records say what each player took from the pots in all, not from which pot. Taken
from the most exclusive pot down, the players still owed chips among a pot's contenders
are its winners: whoever wins a pot has the best hand among its contenders, so he also
wins every smaller pot he contends for, and a contender who won nothing more has had his
winnings counted against the pots above. (With ties, the chips of a pot go to its
winners in proportion to what each is still owed.)

With a rake, what the winners of a pot took is the pot less the house's part; that part
is counted as paid by them, in proportion to their shares, so the flows are those of the
pot as the rules split it, and each player's rake is reported beside them: a player's
net in a hand is the sum of his flows less the rake he paid.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from agent.game.showdown import side_pots

__all__ = ["hand_flows"]


def hand_flows(order: Sequence[int], put_in: Mapping[int, int], won: Mapping[int, int],
               folded: set[int]) -> tuple[dict[tuple[int, int], float], dict[int, float]]:
    """The chips each player won from each other player in one hand, and the rake each
    winner paid.

    ``order``: the seated players clockwise from the button's left; ``put_in`` and
    ``won``: each one's chips put in and taken (after any rake); ``folded``: those out
    of the hand at the end. Returns ({(winner, loser): chips}, {player: rake paid}).
    """
    n = len(order)
    index = {p: i for i, p in enumerate(order)}
    put = [put_in.get(p, 0) for p in order]
    live = [index[p] for p in order if p not in folded]
    if not live:
        return {}, {}
    owed = [float(won.get(p, 0)) for p in order]
    pots = side_pots(put, live)
    # Each player's part of each pot: what he put in between its levels (the chips above
    # every contender's total, only reachable with free folds, are in the last pot).
    levels = sorted({put[s] for s in live})
    parts = []
    lower = 0
    for k, upper in enumerate(levels):
        top = k == len(levels) - 1
        parts.append([max(0, (p if top else min(p, upper)) - lower) for p in put])
        lower = upper
    # Who took each pot, from the most exclusive down; what a pot's winners did not take
    # is its rake, paid by them in proportion to their shares.
    shares = [[0.0] * n for _ in pots]
    rakes = [0.0] * n
    for k in range(len(pots) - 1, -1, -1):
        amount, eligible = pots[k].amount, pots[k].eligible
        due = [s for s in eligible if owed[s] > 1e-9]
        need = sum(owed[s] for s in due)
        if not need:
            continue
        take = min(need, amount)
        for s in due:
            shares[k][s] = owed[s] * take / need
            owed[s] -= shares[k][s]
        raked = amount - take
        for s in due:
            cut = raked * shares[k][s] / take
            shares[k][s] += cut  # what the rules gave him, before the house took its part
            rakes[s] += cut
    flows: dict[tuple[int, int], float] = {}
    for k in range(len(pots)):
        gain = {s: shares[k][s] - parts[k][s] for s in range(n) if shares[k][s] - parts[k][s] > 1e-9}
        paid = {s: parts[k][s] for s in range(n) if parts[k][s] and shares[k][s] <= 1e-9}
        gained = sum(gain.values())
        if not gained:
            continue
        for loser, chips in paid.items():
            for winner, g in gain.items():
                key = (order[winner], order[loser])
                flows[key] = flows.get(key, 0.0) + chips * g / gained
    return flows, {order[i]: r for i, r in enumerate(rakes) if r > 1e-9}
