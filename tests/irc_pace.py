"""The pace of a 4-seat table under real servers' default flood limits, with no exemption
(it takes minutes; run from a checkout, where the test servers are):

    PYTHONPATH=. python tests/irc_pace.py [--quick] [--json] [--config FILE]

The dealer and four house bots play on ngircd and on InspIRCd (tests/irc_servers.py:
Debian's packages, their default connect classes), each table twice:

* *before*: the dealer as it was, one clause a line, its clock started when it queued a
  turn line, and the bots' cautious default budget (5 lines at once, then one every 2 s);
* *after*: joined clauses (docs/irc-dialect.md), the fair clock (a PING behind each turn
  line), and the send budget of the server's software, recognised from its welcome
  ([irc] flood_profile = "auto").

Figures: hands a minute (timed from the end of the first hand, so connecting and sitting
do not count) and the lines the dealer sent a hand, every line it wrote to the server
(hand and table lines, hole cards, the clock's PINGs). Wall-clock figures on a shared
machine: say the load beside them.

Not a `poki bench` section: it needs the servers the tests start, which the wheel does not
ship (tests/irc_servers.py).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agent.bench.irc import dealer_bot
from agent.config import Config, ConfigError, load_config
from agent.play.irc.dealer import DealerHost
from agent.play.irc.player import PlayerBot
from agent.play.kinds import install_kinds

from irc_servers import Inspircd, Ngircd, missing_programs

HOUSE = ("rr", "tight-aggressive", "loose-passive", "loose-aggressive")
TARGET_SECONDS_PER_HAND = 30.0  # 4 seats under ngircd's defaults


@dataclasses.dataclass(frozen=True)
class PaceRow:
    server: str
    variant: str  # before / after
    hands: int  # hands timed
    seconds_per_hand: float
    dealer_lines_per_hand: float
    timeouts: int

    @property
    def hands_per_minute(self) -> float:
        return 60.0 / self.seconds_per_hand


def table_pace(base: Config, server: str, variant: str, hands: int, directory: Path, seed: int = 7) -> PaceRow:
    """One table of four house bots on a fresh ``server`` ("ngircd" or "inspircd") for
    ``hands`` + 1 hands, with the settings ``base`` (the flood budget and pauses set as the
    variant needs); the first is not timed."""
    profile = "auto" if variant == "after" else "safe"  # after: the budget of the server's software
    config = dataclasses.replace(base, irc=dataclasses.replace(
        base.irc, flood_profile=profile, flood_burst=None, flood_lines_per_second=None,
        hand_pause_seconds=3.0, reconnect_min_seconds=0.2,
        reconnect_max_seconds=2.0))
    daemon = Ngircd() if server == "ngircd" else Inspircd(services=False)
    started: list = []
    with daemon as net:
        try:
            host = DealerHost(net.address, ["#pace"], directory / f"dealer-{server}-{variant}.sqlite", config,
                              hands=hands + 1, seed=seed, min_players=len(HOUSE),
                              joined_clauses=variant == "after", fair_clock=variant == "after")
            started.append(host.start())
            if not host.wait_tables(120):
                raise RuntimeError(f"the dealer did not open its table on {server}")
            for k, spec in enumerate(HOUSE):
                started.append(PlayerBot(config, server=net.address, channels=["#pace"], dealer="dealer",
                                         spec=spec, nick=f"house{k}", db_path=None, seed=seed + k).start())
            deadline = time.monotonic() + 600
            while host.call(lambda: dealer_bot(host).stats.hands) < 1:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"no hand finished on {server} within 600 s")
                time.sleep(0.05)
            lines0 = host.call(lambda: dealer_bot(host).client.lines_sent)
            t0 = time.perf_counter()
            if not host.wait(hands * 300):
                raise RuntimeError(f"the table on {server} did not finish its hands")
            elapsed = time.perf_counter() - t0
            lines = host.call(lambda: dealer_bot(host).client.lines_sent) - lines0
            timeouts = host.call(lambda: dealer_bot(host).stats.timeouts)
        finally:
            for thing in reversed(started):
                thing.stop()
    return PaceRow(server, variant, hands, elapsed / hands, lines / hands, timeouts)


def run_irc_pace(config: Config, quick: bool = False) -> dict[str, Any]:
    """Both servers installed, both variants on each: the figures (rows of PaceRow)."""
    hands = 3 if quick else 8
    rows = []
    missing = {server: missing_programs(server) for server in ("ngircd", "inspircd")}
    with tempfile.TemporaryDirectory(prefix="poki-irc-pace-") as tmp:
        for server, lacking in missing.items():
            if lacking:
                continue  # said in "not_installed"
            for variant in ("before", "after"):
                rows.append(table_pace(config, server, variant, hands, Path(tmp)))
    return {
        "rows": [dict(dataclasses.asdict(r), hands_per_minute=r.hands_per_minute) for r in rows],
        "not_installed": {server: lacking for server, lacking in missing.items() if lacking},
        "target_seconds_per_hand": TARGET_SECONDS_PER_HAND,
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "note": "4 house bots + the dealer on loopback ngircd / InspIRCd with their default flood "
                "limits; before: one clause a line, clock from queueing, 5 lines then 0.5/s; "
                "after: joined clauses, fair clock, the server's flood profile",
    }


def format_pace(figures: dict[str, Any]) -> str:
    """The figures as lines of text, one a table and variant."""
    load = figures.get("load_average")
    lines = []
    for row in figures["rows"]:
        target = f"; target <= {figures['target_seconds_per_hand']:.0f} s/hand" if row["server"] == "ngircd" else ""
        lines.append(f"IRC table, 4 seats, {row['server']} default limits, {row['variant']}: "
                     f"{row['hands_per_minute']:.1f} hands/min; {row['seconds_per_hand']:.1f} s/hand; "
                     f"{row['dealer_lines_per_hand']:.1f} dealer lines/hand; {row['timeouts']} time-outs; "
                     f"{row['hands']} hands" + (f"; load {load:.1f}" if load is not None else "") + target)
    for server, lacking in figures["not_installed"].items():
        lines.append(f"{server}: not measured, not installed: {', '.join(lacking)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/irc_pace.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="3 timed hands a table instead of 8")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--config", default=None,
                        help="settings file (default: config.toml in the working directory, else built-in defaults)")
    args = parser.parse_args(argv)
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"irc_pace: {exc}", file=sys.stderr)
        return 2
    install_kinds(config)  # the player kinds, with these settings, as `poki` registers them
    figures = run_irc_pace(config, quick=args.quick)
    print(json.dumps(figures, indent=2) if args.json else format_pace(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
