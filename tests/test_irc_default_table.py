"""The table out of the box (issue 38's must-show): on Debian's ngircd and on InspIRCd with
Anope services, each with its default limits, the bots with the built-in settings (no
config file, no flood option: the send budget by the server's software) deal and play 8
hands at 3 seats, printing the seconds a hand; every house bot's database holds every
hand the dealer's holds, the last one included. And `poki irc deal` (a real process, the
built-in settings) stopped by SIGTERM in the middle of a hand on ngircd: a watcher's log
holds that hand's void and its deck's reveal, which hashes to its commitment.

Wall-clock figures are printed, never asserted (docs/architecture.md: tests have no
wall-clock limits); tests/irc_pace.py measures the pace at 4 seats."""
from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from test_irc_fair import alice_who_holds

from agent.config import Config
from agent.play.irc.dealer import DealerHost
from agent.play.irc.player import PlayerBot

from irc_live import DOC_LINES, HANG, Person, clauses, running, stored_hands, time_out_gaps, wait_for  # noqa: F401 - fixtures and helpers used by name
from irc_servers import inspircd, ngircd, real_server  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = Config()  # the built-in settings, as `poki irc` runs without a config file
HOUSE = (("rr", "rr"), ("tag", "tight-aggressive"), ("fish", "loose-passive"))
HANDS = 8



def test_eight_hands_with_the_built_in_settings_reach_every_players_database(real_server, running,
                                                                              tmp_path) -> None:
    name, net = real_server
    host = DealerHost(net.address, ["#holdem"], tmp_path / "dealer.sqlite", DEFAULTS, hands=HANDS,
                      min_players=len(HOUSE), log_dir=tmp_path / "logs")
    running(host.start())
    assert host.wait_tables(HANG), "the dealer did not open its table"
    bots = {}
    for nick, spec in HOUSE:
        bots[nick] = PlayerBot(DEFAULTS, server=net.address, channels=["#holdem"], dealer="dealer", spec=spec,
                               nick=nick, db_path=tmp_path / f"{nick}.sqlite", seed=sum(map(ord, nick))).start()
        running(bots[nick])
    # Timed from the end of the first hand (connecting and sitting do not count).
    wait_for(lambda: host.call(lambda: host.bot.stats.hands) >= 1, timeout=HANG * 2, what="the first hand")
    began = time.monotonic()
    assert host.wait(HANDS * 120), "the dealer did not finish its hands"
    seconds = (time.monotonic() - began) / (HANDS - 1)
    assert host.error is None, host.error
    budget = host.client.budget.name
    stats = host.call(lambda: host.bot.stats)
    host.stop()  # its last lines drained before QUIT
    print(f"{name}: {HANDS} hands at {len(HOUSE)} seats with the built-in settings (send budget {budget}): "
          f"{seconds:.1f} s a hand (hands 2-{HANDS}); {stats.timeouts} time-outs, {stats.voided} void")
    assert budget == name and stats.voided == 0
    dealt = stored_hands(tmp_path / "dealer.sqlite")
    assert len(dealt) == HANDS
    last = max(dealt, key=lambda h: int(h.rsplit(":", 1)[1]))
    for nick, bot in bots.items():
        wait_for(lambda: bot.writer.stored >= HANDS, what=f"{nick} to store every hand")
        bot.stop()
        held = stored_hands(tmp_path / f"{nick}.sqlite")
        assert last in held, f"{nick} lacks the last hand"
        assert held == dealt, nick


def test_sigterm_mid_hand_on_ngircd_says_the_void_and_the_deck(ngircd, running, tmp_path) -> None:
    """`poki irc deal` with the built-in settings on ngircd's default limits, SIGTERM while
    a person holds her turn: the void and the reveal of that hand reach a watcher, the
    reveal hashes to the commitment, the process exits 0."""
    net = ngircd
    watcher = Person(net.port, "watcher")
    running(watcher)
    watcher.send("JOIN #holdem")
    alice = alice_who_holds(net, {"on": True})  # her turn waits
    running(alice)
    alice.send("JOIN #holdem")
    wait_for(lambda: any(c == "JOIN" for c, *_ in alice.lines), what="alice in the channel")
    for nick, spec in HOUSE[:2]:
        running(PlayerBot(DEFAULTS, server=net.address, channels=["#holdem"], dealer="dealer", spec=spec,
                          nick=nick, seed=sum(map(ord, nick))).start())
    command = [sys.executable, "-m", "agent.cli", "irc", "deal", "--server", net.address, "--channel", "#holdem",
               "--db", str(tmp_path / "dealer.sqlite"), "--logs", str(tmp_path / "logs"), "--no-report",
               "--no-progress"]
    p = subprocess.Popen(command, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    running(lambda: (p.kill(), p.wait()))

    def turns() -> list[int]:
        return [int(m.group(1)) for t in alice.from_dealer() if (m := DOC_LINES["turn"].fullmatch(t))
                and m.group(2) == "alice"]

    wait_for(turns, timeout=HANG * 2, what="alice's held turn")
    held = max(turns())
    p.send_signal(signal.SIGTERM)
    assert p.wait(HANG) == 0, p.stdout.read()
    wait_for(lambda: f"Hand {held}: void, chips restored." in watcher.from_dealer(), timeout=10,
             what="the void in the watcher's log")
    said = watcher.from_dealer()
    commits = [m.group(2) for t in said if (m := DOC_LINES["commit"].fullmatch(t)) and int(m.group(1)) == held]
    reveals = [t for t in said if re.fullmatch(rf"Hand {held}: deck .+, salt [0-9a-f]{{32}}\.", t)]
    assert commits and reveals, "the deck of the stopped hand was not revealed"
    assert hashlib.sha256(reveals[0].encode()).hexdigest() == commits[0]
    print(f"ngircd: SIGTERM in hand {held}: the watcher saw its void and its deck")


def test_the_clock_gives_the_time_shown_under_the_budget_of_inspircd(inspircd, running, tmp_path) -> None:
    """Under the budget of the server's software the dealer takes a turn line as delivered
    once it is written (no PING behind it: on InspIRCd a PING costs as much of the limit
    as a line), since that budget keeps inside the server's limits. A watcher times a
    person who never answers from her turn line to her time-out: never less than the
    limit shown less 2 s; no bot's move left late."""
    net = inspircd
    limit = 10
    seen: list[tuple[float, str]] = []

    def watch(person, command, prefix, target, text) -> None:
        if command == "PRIVMSG" and prefix.split("!")[0] == "dealer" and target == "#holdem":
            seen.extend((time.monotonic(), clause) for clause in clauses(text))

    watcher = Person(net.port, "watcher", on_line=watch)
    running(watcher)
    sleeper = Person(net.port, "sleeper")
    running(sleeper)
    for person in (watcher, sleeper):
        wait_for(lambda: any(c == "001" for c, *_ in person.lines), what=f"{person.nick} connected")
        person.send("JOIN #holdem")
    host = DealerHost(net.address, ["#holdem"], tmp_path / "dealer.sqlite", DEFAULTS, hands=2, action_seconds=limit,
                      min_players=3).start()
    running(host)
    assert host.wait_tables(HANG)
    bots = [PlayerBot(DEFAULTS, server=net.address, channels=["#holdem"], dealer="dealer", spec=spec, nick=nick,
                      seed=sum(map(ord, nick))).start() for nick, spec in HOUSE[:2]]
    for bot in bots:
        running(bot)
    sleeper.say("#holdem", "!sit")
    assert host.wait(HANG * 4), "the dealer did not finish its hands"
    assert host.client.budget_of_the_server
    gaps = time_out_gaps(seen, "sleeper", limit)
    assert gaps, "the sleeper never timed out"
    assert min(gaps) >= limit - 2, gaps
    for bot in bots:
        assert all(st.sent_late == 0 for st in bot.status.values())
    print(f"inspircd: turn line to time-out {', '.join(f'{g:.2f}' for g in gaps)} s (limit shown {limit} s)")
