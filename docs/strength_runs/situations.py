"""Where two specs' difference comes from, by situation (issue 42, item 2): a duplicate
match replayed batch by batch exactly as `poki match` plays it (the same players, cards and
seats from the seed; agent.play.offline.tournament.play_batch), each hand's record kept,
and every player's chips of every hand put into one situation:

* ``preflop``: the hand ended for the player before the flop (it folded, or everyone else did);
* ``flop HU`` / ``flop 3-4`` / ``flop 5+``: it saw the flop with that many players, split
  ``IP`` (last to act after the flop among them) and ``OOP`` (not last).

Per deal the chips of each situation are summed over the rotations; SPEC_A's copies minus
SPEC_B's copies, in small bets per hand of the match, with a 95% interval (the deal the
unit): the rows add up to the whole paired difference. A decomposition on the same cards,
not a test of a component: a situation where Poki loses shows where to look.

Usage: situations.py DEALS SEED SPEC_A SPEC_B SPEC ... (the ten seats; two worker processes)
"""
import sys
from multiprocessing import Pool

import numpy as np

from agent.config import TableConfig
from agent.play.offline.dealer import Dealer
from agent.play.offline.tournament import TournamentSetup, play_batch

SITUATIONS = ("preflop", "flop HU IP", "flop HU OOP", "flop 3-4 IP", "flop 3-4 OOP", "flop 5+ IP", "flop 5+ OOP")
_CAPTURED: list = []


def _keep_records() -> None:
    """Keep every record the dealer plays in this process (the batch returns only chips)."""
    play_hand = Dealer.play_hand

    def keeping(self, *args, **kwargs):
        record = play_hand(self, *args, **kwargs)
        _CAPTURED.append(record)
        return record

    Dealer.play_hand = keeping


def situation(record, player: str) -> int:
    """The index in SITUATIONS of ``player``'s part in the hand."""
    folded_pre = {a.player for a in record.actions if a.round == 0 and a.kind == "f"}
    seated = [s.player for s in record.seats]
    at_flop = [p for p in seated if p not in folded_pre]
    if player in folded_pre or len(at_flop) < 2 or not any(a.round >= 1 for a in record.actions):
        return 0
    position = {s.player: s.position for s in record.seats}
    last = max(at_flop, key=position.__getitem__)
    size = 0 if len(at_flop) == 2 else 1 if len(at_flop) <= 4 else 2
    return 1 + 2 * size + (0 if player == last else 1)


def batch(args):
    setup, index, deals = args
    _CAPTURED.clear()
    play_batch(setup, index, deals)
    names = setup.names
    col = {n: i for i, n in enumerate(names)}
    out = np.zeros((deals, len(SITUATIONS), len(names)), dtype=np.int64)
    for record in _CAPTURED:
        _, deal, _ = record.hand_id.rsplit(":", 2)
        d = int(deal) - index * setup.chunk
        for result in record.results:
            out[d, situation(record, result.player), col[result.player]] += result.won - result.put_in
    return index, out


def main() -> None:
    deals, seed, spec_a, spec_b, *specs = sys.argv[1:]
    setup = TournamentSetup.from_text(specs, TableConfig(seats=len(specs)), int(seed), name="situations")
    total = int(deals)
    jobs = [(setup, i, min(setup.chunk, total - i * setup.chunk)) for i in range((total + setup.chunk - 1) // setup.chunk)]
    _keep_records()
    chips = np.zeros((total, len(SITUATIONS), len(specs)), dtype=np.int64)
    with Pool(2) as pool:
        for index, out in pool.imap_unordered(batch, jobs):
            chips[index * setup.chunk:index * setup.chunk + len(out)] = out
    sb = chips / (setup.rotations * setup.table.small_bet)
    written = [str(s) for s in setup.specs]
    a = [i for i, s in enumerate(written) if s == spec_a]
    b = [i for i, s in enumerate(written) if s == spec_b]
    if not a or not b:
        sys.exit(f"specs as written: {sorted(set(written))}")
    print(f"{spec_a} minus {spec_b}, {total} deals, seed {seed}, sb/hand by situation (paired by deal):")
    for k, name in enumerate(SITUATIONS):
        x = sb[:, k, a].mean(axis=1) - sb[:, k, b].mean(axis=1)
        print(f"  {name:13s} {x.mean():+.3f} ± {1.96 * x.std(ddof=1) / np.sqrt(total):.3f}"
              f"   ({spec_a} {sb[:, k, a].mean(axis=1).mean():+.3f}, {spec_b} {sb[:, k, b].mean(axis=1).mean():+.3f})")
    x = sb[:, :, a].sum(axis=1).mean(axis=1) - sb[:, :, b].sum(axis=1).mean(axis=1)
    print(f"  {'all':13s} {x.mean():+.3f} ± {1.96 * x.std(ddof=1) / np.sqrt(total):.3f}")


if __name__ == "__main__":
    main()
