"""The fair clock and the game's priority over a real server's flood limits: ngircd from
Debian's package, its default limits (3 lines at once, then about 3 a second, for every
client, the dealer included), on loopback.

A watcher (a plain IRC client reading the dealer by docs/irc-dialect.md's grammar) times
each turn line of a seated person who never answers against that person's time-out
line; a stranger floods the dealer with !stats meanwhile."""
from __future__ import annotations

import dataclasses
import time

from agent.config import load_config
from agent.play.irc.dealer import DealerHost
from agent.play.irc.player import PlayerBot

from irc_live import DOC_LINES, HANG, Person, clauses, running, time_out_gaps, wait_for  # noqa: F401 - fixture
from irc_servers import ngircd  # noqa: F401 - fixture

ADVERTISED = 10  # the dealer's time limit in this test (s)


def test_under_ngircd_limits_a_stats_flood_times_out_nobody_and_the_limit_shown_is_the_time_given(
        ngircd, running, tmp_path) -> None:
    """Poki and two house bots play with a person who never answers; a stranger sends 30
    !stats while they play. No bot times out; the person's turns run out no sooner than
    (advertised - 2) s after the watcher saw the turn line; the stranger gets one or two
    answers; and the table keeps to the dialect."""
    base = load_config()
    cfg = dataclasses.replace(base, irc=dataclasses.replace(
        base.irc, flood_profile="ngircd", hand_pause_seconds=1.0, reconnect_min_seconds=0.2,
        reconnect_max_seconds=2.0, max_timeouts=3))
    seen: list[tuple[float, str]] = []  # (when the watcher read it, the dealer's line)

    def watch(person, command, prefix, target, text) -> None:
        if command == "PRIVMSG" and prefix.split("!")[0] == "dealer" and target == "#holdem":
            seen.append((time.monotonic(), text))

    watcher = Person(ngircd.port, "watcher", on_line=watch)
    running(watcher)
    sleeper = Person(ngircd.port, "sleeper")
    running(sleeper)
    stranger = Person(ngircd.port, "stranger")
    running(stranger)
    for person in (watcher, sleeper):
        wait_for(lambda: any(c == "001" for c, *_ in person.lines), what=f"{person.nick} connected")
        person.send("JOIN #holdem")
    wait_for(lambda: any(c == "001" for c, *_ in stranger.lines), what="the stranger connected")

    hands = 4
    host = DealerHost(ngircd.address, ["#holdem"], tmp_path / "dealer.sqlite", cfg, hands=hands, seed=11,
                      action_seconds=ADVERTISED, min_players=4).start()
    running(host)
    assert host.wait_tables(HANG)
    bots = [PlayerBot(cfg, server=ngircd.address, channels=["#holdem"], dealer="dealer", spec=spec, nick=nick,
                      db_path=tmp_path / f"{nick}.sqlite" if nick == "poki" else None, seed=k).start()
            for k, (spec, nick) in enumerate((("poki", "poki"), ("rr", "rr"), ("tight-aggressive", "tag")))]
    for bot in bots:
        running(bot)
    sleeper.say("#holdem", "!sit")
    wait_for(lambda: any(" to act: " in t for _, t in seen), what="the first turn line")
    for _ in range(30):  # the stranger floods: ngircd lets them through at its own pace
        stranger.say("dealer", "!stats")
    assert host.wait(HANG * 4), "the dealer did not finish its hands"

    said = [(when, clause) for when, text in seen for clause in clauses(text)]
    for _, clause in said:
        assert any(r.fullmatch(clause) for r in DOC_LINES.values()), clause
    timed_out = [c for _, c in said if c.endswith("(time-out).")]
    assert not [c for c in timed_out if not c.split(": ", 1)[1].startswith("sleeper ")], timed_out
    for bot in bots:
        assert all(st.sent_late == 0 for st in bot.status.values())
        seat = bot.seats.get("#holdem")
        assert seat is not None and seat.stats.late == 0

    # Each of the sleeper's turns against its time-out, as the watcher saw them.
    gaps = time_out_gaps(said, "sleeper", ADVERTISED)
    assert gaps, "the sleeper never timed out"
    assert min(gaps) >= ADVERTISED - 2, gaps
    assert host.bot.stats.delivery_max > 0  # the clock waited for the server's word

    notices = [t for c, p, _, t in list(stranger.lines) if c == "NOTICE" and p.split("!")[0] == "dealer"]
    assert 1 <= len(notices) <= 2, notices
    print(f"watcher: turn line to time-out {', '.join(f'{g:.2f}' for g in gaps)} s (advertised {ADVERTISED} s); "
          f"longest turn-line delivery {host.bot.stats.delivery_max:.2f} s over {host.bot.stats.turns} turns; "
          f"the stranger's 30 !stats earned {len(notices)} answer(s)")
