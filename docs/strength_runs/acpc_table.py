"""Poki at an ACPC table over TCP against house bots, beside the same table in-process.

    python docs/strength_runs/acpc_table.py [HANDS] [DEAL_SEED] [POKI_SEED]

Plays the same seeded deals (agent.play.deals.SeededDeals) with the same player seeds
twice: in-process (play_match with an opponent database attached, as `poki match --db`)
and at our ACPC dealer (agent.play.acpc.dealer, the house bots in-process seats) with
Poki as a separate `poki acpc play --db` process connected over TCP. The deadlines are an
hour (docs/strength.md §11: the simulator is then cut by its trial count alone, as in a
match). Prints Poki's result both ways (small bets a hand, 95% interval over hands), the
house bots', and whether every seat's chips agree hand by hand.
"""
from __future__ import annotations

import math
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agent.config import load_config
from agent.play.acpc.dealer import AcpcDealer, DealerLimits
from agent.play.deals import SeededDeals
from agent.play.kinds import install_kinds
from agent.play.offline.dealer import play_match
from agent.play.seat import Seat, table_generator
from agent.players import create_player
from connectors.acpc.game import standard_game
from db.database import Database

REPO = Path(__file__).resolve().parents[2]
SEATS = ("poki", "rr", "tag")  # the ACPC seat order; in-process the button moves one seat a hand
HOUSE = {"rr": ("rr", 101), "tag": ("tight-aggressive", 102)}
CONFIG = """
[table]
seats = 3
starting_stack = 1000000
[acpc]
decision_deadline = 3600.0
hand_budget = 3600.0
"""


def per_hand(path: Path) -> dict[str, list[int]]:
    """Each seat's chips won or lost, hand by hand, from a database."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT r.hand, p.name, r.won - r.put_in FROM results r JOIN players p ON p.id = r.player"
                            " ORDER BY r.hand").fetchall()
    finally:
        conn.close()
    out: dict[str, list[int]] = {name: [] for name in SEATS}
    for _, name, net in rows:
        out[name].append(net)
    return out


def summary(nets: list[int], small_bet: int) -> str:
    n = len(nets)
    mean = sum(nets) / n / small_bet
    var = sum((x / small_bet - mean) ** 2 for x in nets) / (n - 1)
    return f"{mean:+.3f} ± {1.96 * math.sqrt(var / n):.3f} sb/hand"


def main() -> None:
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    deals = SeededDeals(int(sys.argv[2]) if len(sys.argv) > 2 else 2027)
    poki_seed = int(sys.argv[3]) if len(sys.argv) > 3 else 17
    work = Path(tempfile.mkdtemp(prefix="acpc-table-"))
    config_path = work / "config.toml"
    config_path.write_text(CONFIG)
    config = load_config(config_path)
    install_kinds(config)

    def house(name: str):
        spec, seed = HOUSE[name]
        return create_player(spec, table_generator(seed), name)

    t0 = time.perf_counter()
    order = SEATS[-1:] + SEATS[:-1]
    players = [create_player("poki", table_generator(poki_seed), "poki") if name == "poki" else house(name)
               for name in order]
    with Database(work / "match.sqlite", half_life=config.model.half_life_hands) as db:
        play_match(players, config.table, hands, 0, deals=deals, store=db, network="local")
    t1 = time.perf_counter()

    game = standard_game("holdem.limit.3p.game")
    local = {i: Seat(house(name), me=name) for i, name in enumerate(SEATS) if name != "poki"}
    dealer = AcpcDealer(game, SEATS, hands, 0, local=local, deals=deals,
                        limits=DealerLimits(response_timeout=3600, budget_per_hand=3600, connect_timeout=120))
    port = dealer.listen()[0]
    proc = subprocess.Popen([sys.executable, "-m", "agent.cli", "--config", str(config_path), "acpc", "play",
                             "127.0.0.1", str(port), "--game", "holdem.limit.3p.game", "--opponents", *SEATS[1:],
                             "--db", str(work / "acpc.sqlite"), "--seed", str(poki_seed), "--no-progress"],
                            cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        dealer.wait_for_players()
        outcome = dealer.run()
        out, _ = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
        dealer.close()
        for seat in local.values():
            seat.close()
    t2 = time.perf_counter()
    print(out.strip())
    inproc, acpc = per_hand(work / "match.sqlite"), per_hand(work / "acpc.sqlite")
    small_bet = config.table.small_bet
    print(f"\n{hands} hands, deals seed {deals.seed}, Poki seed {poki_seed}, house seeds "
          f"{', '.join(f'{n}={s}' for n, (_, s) in HOUSE.items())}")
    for name in SEATS:
        print(f"{name:>5}: in-process {summary(inproc[name], small_bet)}   "
              f"ACPC over TCP {summary(acpc[name], small_bet)}")
    print(f"the dealer's SCORE line: {dict(zip(SEATS, (s.total for s in outcome.seats)))}")
    print(f"every seat's chips the same hand by hand: {inproc == acpc}")
    print(f"seconds: in-process {t1 - t0:.0f}, ACPC {t2 - t1:.0f}")


if __name__ == "__main__":
    main()
