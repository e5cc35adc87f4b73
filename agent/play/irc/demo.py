"""The embedded default (`poki demo`): Poki on IRC with nothing installed beyond the
package. A real IRC server (miniircd) on loopback, the dealer bot at #holdem, Poki and
house bots as separate IRC clients; a set number of hands, stored; the results and what
the database learned; everything shut down.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from agent.config import Config
from agent.play.kinds import ensure_kinds
from agent.players import parse_spec

__all__ = ["DEMO_FIELD", "run_irc_demo"]

DEMO_FIELD = ("poki", "rr", "tight-aggressive", "loose-passive", "loose-aggressive")
CHANNEL = "#holdem"


def _nick(spec: str, taken: set[str]) -> str:
    ensure_kinds()
    parsed = parse_spec(spec)
    base = (parsed.label or parsed.kind).replace("-", "")[:12] or "bot"
    nick, k = base, 2
    while nick in taken:
        nick, k = f"{base}{k}", k + 1
    taken.add(nick)
    return nick


def run_irc_demo(config: Config, out: Path, *, hands: int, specs: Sequence[str] = DEMO_FIELD,
                 seed: int = 1995, progress: bool = True,
                 say: Callable[[str], None] = print) -> dict:
    """Play ``hands`` hands on a loopback IRC server; returns the figures printed."""
    from tqdm import tqdm

    from agent.play.irc.dealer import DealerHost
    from agent.play.irc.player import PlayerBot
    from connectors.irc.server import LoopbackServer

    # Our own server: no flood limit, a short pause between hands, quick reconnects.
    irc = dataclasses.replace(config.irc, flood_profile="custom", flood_lines_per_second=0.0,
                              hand_pause_seconds=0.0, reconnect_min_seconds=0.2, reconnect_max_seconds=2.0,
                              action_seconds=min(config.irc.action_seconds, 10))
    config = dataclasses.replace(config, irc=irc)
    taken = {"dealer"}
    seats = [(_nick(spec, taken), spec) for spec in specs]
    t0 = time.perf_counter()
    server = LoopbackServer().start()
    started: list = []
    try:
        say(f"== IRC server: miniircd on {server.address} (this machine only)")
        host = DealerHost(server.address, [CHANNEL], out / "dealer.sqlite", config, hands=hands, seed=seed,
                          log_dir=out / "logs", min_players=len(seats))
        started.append(host.start())
        if not host.wait_tables(60):
            raise RuntimeError("the dealer did not join its channel")
        dealer = host.bot
        if dealer is None:  # start() returned before the loop thread made the bot
            raise RuntimeError("the dealer host joined its channel without a dealer bot")
        say(f"== dealer bot at {CHANNEL}: {hands} hands of {config.table.small_bet}/{config.table.big_bet} "
            f"limit hold'em, bankrolls in {out / 'dealer.sqlite'}")
        bots = {}
        for k, (nick, spec) in enumerate(seats):
            db = out / "poki.sqlite" if k == 0 else None
            bot = PlayerBot(config, server=server.address, channels=[CHANNEL], dealer="dealer", spec=spec,
                            nick=nick, db_path=db, seed=seed + 1 + k)
            started.append(bot.start())
            bots[nick] = bot
        say("== players (each its own IRC connection): "
            + ", ".join(f"{nick} ({spec})" for nick, spec in seats))
        bar = tqdm(total=hands, unit="hand", disable=not progress)
        while not host.wait(0.25):
            bar.n = host.call(lambda: dealer.stats.hands)
            bar.refresh()
        bar.n = hands
        bar.close()
        first = next(iter(bots.values()))
        deadline = time.monotonic() + 60
        while first.writer.stored < hands and time.monotonic() < deadline:
            time.sleep(0.05)
        stats = host.call(lambda: dealer.stats)
        total, granted = host.chips()
        bankrolls = host.call(lambda: {nick: (host.bankrolls.bankroll(nick) or 0)
                                        + host.bankrolls.at_table(CHANNEL).get(nick, 0) for nick in bots})
        say(f"\n== results after {stats.hands} hands ({stats.timeouts} time-outs, {stats.voided} void)")
        rows = []
        for nick, bot in bots.items():
            seat = bot.seats.get(CHANNEL)
            s = seat.stats if seat is not None else None
            lat = bot.latency()
            rows.append((nick, bot.spec, s.hands if s else 0, s.net_chips if s else 0,
                         s.sb_per_hand if s else 0.0, s.interval95 if s else 0.0, bankrolls[nick], lat))
        width = max(len(r[0]) for r in rows)
        say(f"{'player':<{width}}  {'hands':>5}  {'chips':>7}  {'sb/hand':>16}  {'bankroll':>8}  decision ms (median/p99)")
        for nick, _spec, n, net, sb, ci, bank, lat in sorted(rows, key=lambda r: -r[4]):
            timing = f"{lat['median_ms']:.1f} / {lat['p99_ms']:.1f}" if lat.get("decisions") else "-"
            say(f"{nick:<{width}}  {n:>5}  {net:>+7}  {sb:>+7.2f} +/- {ci:<5.2f}  {bank:>8}  {timing}")
        say(f"chips in bankrolls and on the table: {total} = {granted} granted (none made or lost)")
        figures = {"hands": stats.hands, "seconds": time.perf_counter() - t0, "chips": (total, granted),
                   "players": {r[0]: {"sb_per_hand": r[4], "hands": r[2]} for r in rows}}
    finally:
        for thing in reversed(started):
            thing.stop()
        server.stop()
    return figures
