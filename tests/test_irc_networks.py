"""The bots on real IRC server software as networks run it (Debian's packages, started on
127.0.0.1 by tests/irc_servers.py with self-signed certificates and the servers' own
default flood limits): a table over TLS with every bot logged in by SASL on InspIRCd
linked to Anope services, a TLS table on ngircd, NickServ IDENTIFY, a nick regained from
an impostor, server passwords, and refusals that stop a bot with the reason instead of
a storm of reconnections. Who is logged in is checked by WHOIS from a separate
connection (the services' word through the server), not by the bots' own view."""
from __future__ import annotations

import base64
import dataclasses
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from agent.config import Config
from agent.play.irc.dealer import DealerHost
from agent.play.irc.network import BudgetChoice, network_options, send_budget
from agent.play.irc.player import PlayerBot
from connectors.irc.client import IrcClient
from connectors.irc.identity import Login, Tls
from connectors.irc.server import LoopbackServer
from connectors.irc.servers import PROFILES, SAFE
from db.database import Database

from irc_live import HANG, Person, acpc_lines, check_against_acpc_log, running, stored_hands, wait_for  # noqa: F401 - fixtures and helpers used by name
from irc_servers import Ngircd, inspircd, make_certificate, need, ngircd, real_server, secret_file  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parent.parent
BASE = Config()
QUICK = dict(hand_pause_seconds=0.0, action_seconds=20, decision_margin_seconds=1.0,
             reconnect_min_seconds=0.2, reconnect_max_seconds=2.0)
# InspIRCd's default connect class lets a client's lines through at one a second past a
# penalty of 10 (then holds them: fakelag); the bots keep inside it.
INSPIRCD_CFG = dataclasses.replace(BASE, irc=dataclasses.replace(BASE.irc, flood_burst=8,
                                                                 flood_lines_per_second=1.0, **QUICK))
# ngircd reads about three lines a second from a client past a short burst.
NGIRCD_CFG = dataclasses.replace(BASE, irc=dataclasses.replace(BASE.irc, flood_burst=3,
                                                               flood_lines_per_second=2.0, **QUICK))


def password(nick: str) -> str:
    return f"{nick}-pass-1995"


def login_options(net, tmp_path: Path, role: str, nick: str, config: Config, **kw):
    """The bot's network options as `poki irc` builds them: TLS trusting the server's
    self-signed certificate, the password read from a file of its own."""
    if "cert_file" not in kw:
        kw["password_file"] = str(secret_file(tmp_path, f"{nick}.password", password(nick)))
    return network_options(config, role, net.tls_port, tls=True, ca_file=str(net.ca_file), **kw)


def same_hands(poki: PlayerBot, tmp_path: Path, hands: int) -> None:
    """Poki stored every hand the dealer did, as the dealer did, and both agree with the
    dealer's ACPC log (Poki stopped, its database closed)."""
    wait_for(lambda: poki.writer.stored == hands, what="Poki to store every hand")
    poki.stop()
    dealer_hands = stored_hands(tmp_path / "dealer.sqlite")
    assert len(dealer_hands) == hands
    assert stored_hands(tmp_path / "poki.sqlite") == dealer_hands
    check_against_acpc_log(dealer_hands, acpc_lines(tmp_path))


def test_a_table_over_tls_with_sasl_on_inspircd_and_services(inspircd, running, tmp_path) -> None:
    """The dealer, Poki and two house bots, each its own registered account, connect over
    TLS and log in by SASL (PLAIN from password files; one house bot by EXTERNAL with a
    client certificate) and play four hands under InspIRCd's default flood limits (enough
    for every seat to have the button and for the last hand to be the one that proves the
    end reaches every player; each hand takes about 15 s there). WHOIS shows each logged in
    to its account over TLS; Poki stored every hand as the dealer did, both agree with the
    dealer's ACPC log and no chip was made or lost."""
    net = inspircd
    hands = 4
    for nick in ("dealer", "poki", "rr"):
        net.register(nick, password(nick))
    cert = make_certificate(tmp_path, "tag")
    net.register("tag", password("tag"), certificate=cert)
    cfg = INSPIRCD_CFG
    host = DealerHost(net.tls_address, ["#holdem"], tmp_path / "dealer.sqlite", cfg, hands=hands,
                      log_dir=tmp_path / "logs", seed=7, min_players=3,
                      network_options=login_options(net, tmp_path, "deal", "dealer", cfg)).start()
    running(host)
    assert host.wait_tables(HANG), "the dealer did not join its channel"
    bots = {}
    for nick, spec, db in (("poki", "poki", tmp_path / "poki.sqlite"), ("rr", "rr", None),
                           ("tag", "tight-aggressive", None)):
        extra = {"cert_file": str(cert.pem)} if nick == "tag" else {}
        bots[nick] = PlayerBot(cfg, server=net.tls_address, channels=["#holdem"], dealer="dealer", spec=spec,
                               nick=nick, db_path=db, seed=sum(map(ord, nick)),
                               network_options=login_options(net, tmp_path, "play", nick, cfg, **extra)).start()
        running(bots[nick])
    assert bots["tag"].client.login.mechanism == "external"
    assert host.wait(hands * 120), "the dealer did not finish its hands"
    assert host.error is None, host.error
    # Logged in, each to its own account, over TLS: the server's word, asked apart.
    seen = net.whois("dealer", "poki", "rr", "tag")
    for nick, whois in seen.items():
        assert whois.online and whois.secure, whois
        assert whois.account == nick, whois
    assert host.client.account == "dealer" and all(bot.client.account == n for n, bot in bots.items())
    poki = bots["poki"]
    same_hands(poki, tmp_path, hands)
    total, granted = host.chips()
    assert total == granted == 3 * cfg.irc.initial_bankroll
    s = poki.seats["#holdem"].stats
    assert s.hands == hands and s.hands_abandoned == 0
    assert poki.feed.stats.impostor == 0 and poki.feed.stats.malformed == 0
    with Database(tmp_path / "poki.sqlite", create=False) as db:
        assert db.check() == []


def test_a_tls_table_on_ngircd(ngircd, running, tmp_path) -> None:
    """ngircd over TLS with its default limits: the dealer, Poki and a house bot verify
    the server's self-signed certificate against the file given and play three hands
    over TLS sessions; the hands agree on both sides."""
    net = ngircd
    hands = 3
    cfg = NGIRCD_CFG
    options = network_options(cfg, "play", net.tls_port, tls=True, ca_file=str(net.ca_file))
    assert options.tls is not None and options.tls.verify and options.login is None
    host = DealerHost(net.tls_address, ["#holdem"], tmp_path / "dealer.sqlite", cfg, hands=hands,
                      log_dir=tmp_path / "logs", seed=5, network_options=options).start()
    running(host)
    assert host.wait_tables(HANG)
    poki = PlayerBot(cfg, server=net.tls_address, channels=["#holdem"], dealer="dealer", nick="poki",
                     db_path=tmp_path / "poki.sqlite", seed=1, network_options=options).start()
    running(poki)
    running(PlayerBot(cfg, server=net.tls_address, channels=["#holdem"], dealer="dealer", spec="rr", nick="rr",
                      seed=2, network_options=options).start())
    assert host.wait(hands * 180), "the dealer did not finish its hands"
    assert all(w.online for w in net.whois("dealer", "poki", "rr").values())
    # ngircd tells only the user itself and operators who is on TLS: ask the sessions.
    assert host.client.tls_version() in ("TLSv1.2", "TLSv1.3")
    assert poki.client.tls_version() in ("TLSv1.2", "TLSv1.3")
    same_hands(poki, tmp_path, hands)


def test_a_certificate_that_does_not_verify_stops_the_bot(ngircd, running) -> None:
    """Without the server's certificate to trust, verification fails: the bot stops at
    once with the reason and a hint, after one attempt (nothing trying again would fix)."""
    cfg = NGIRCD_CFG
    bot = PlayerBot(cfg, server=ngircd.tls_address, channels=["#holdem"], dealer="dealer", nick="poki",
                    network_options=network_options(cfg, "play", ngircd.tls_port, tls=True)).start()
    running(bot)
    assert bot.wait(HANG)
    assert "does not verify" in bot.failure and "--tls-ca" in bot.failure
    time.sleep(1.0)  # reconnect_min is 0.2 s: a retry would have come by now
    assert bot.client.attempts == 1 and bot.client.connects == 0


def test_a_wrong_password_stops_the_bot_with_the_reason(inspircd, tmp_path) -> None:
    """`poki irc play` with a wrong account password: SASL is refused, the bot exits with
    status 1 and the server's reason, after one attempt (no "reconnecting" in its verbose
    log), and neither the password nor its base64 appears in anything it printed."""
    inspircd.register("wrongpw", password("wrongpw"))
    secret = "not-the-password-42"
    (tmp_path / "config.toml").write_text("[irc]\nreconnect_min_seconds = 0.2\nreconnect_max_seconds = 1\n")
    pw = secret_file(tmp_path, "pw", secret)
    result = subprocess.run(
        [sys.executable, "-m", "agent.cli", "irc", "play", "--config", str(tmp_path / "config.toml"),
         "--server", inspircd.tls_address, "--tls", "--tls-ca", str(inspircd.ca_file), "--nick", "wrongpw",
         "--password-file", str(pw), "--no-report", "-v", "--db", str(tmp_path / "poki.sqlite")],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=HANG)
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "refused SASL PLAIN for account 'wrongpw'" in result.stderr and "wrong account name or password" in out
    assert "reconnecting" not in out and "next try" not in out
    assert secret not in out and base64.b64encode(f"wrongpw\0wrongpw\0{secret}".encode()).decode() not in out


def test_a_dealer_with_a_wrong_password_ends_its_session(inspircd, running, tmp_path) -> None:
    inspircd.register("croupier", password("croupier"))
    cfg = INSPIRCD_CFG
    pw = secret_file(tmp_path, "pw", "wrong-password")
    host = DealerHost(inspircd.tls_address, ["#holdem"], tmp_path / "dealer.sqlite", cfg, nick="croupier",
                      network_options=network_options(cfg, "deal", inspircd.tls_port, tls=True, ca_file=str(inspircd.ca_file),
                                              password_file=str(pw))).start()
    running(host)
    assert host.wait(HANG)
    assert isinstance(host.error, ConnectionError) and "904" in str(host.error)
    time.sleep(1.0)
    assert host.client.attempts == 1
    assert inspircd.whois("croupier")["croupier"].online is False


def test_nickserv_identify_where_sasl_is_not_used(inspircd, running, tmp_path) -> None:
    """With SASL off (as on a server that offers none) the bot identifies to NickServ
    after registering and joins once identified; a wrong password there stops it too."""
    inspircd.register("ident", password("ident"))
    cfg = INSPIRCD_CFG
    bot = PlayerBot(cfg, server=inspircd.tls_address, channels=["#ns"], dealer="dealer", nick="ident",
                    network_options=login_options(inspircd, tmp_path, "play", "ident", cfg, sasl="off")).start()
    running(bot)
    assert bot.client.login.mechanism == "nickserv"
    wait_for(lambda: "#ns" in bot.client.joined, what="the bot to join after identifying")
    assert inspircd.whois("ident")["ident"].account == "ident"
    bot.stop()
    wrong = PlayerBot(cfg, server=inspircd.tls_address, channels=["#ns"], dealer="dealer", nick="ident",
                      network_options=network_options(cfg, "play", inspircd.tls_port, tls=True, sasl="off",
                                              ca_file=str(inspircd.ca_file),
                                              password_file=str(secret_file(tmp_path, "bad", "bad-password")))).start()
    running(wrong)
    assert wrong.wait(HANG)
    assert "refused IDENTIFY" in wrong.failure and "Password incorrect" in wrong.failure
    assert wrong.client.attempts == 1 and wrong.client.joined == set()


def test_the_dealer_takes_its_registered_nick_back_from_an_impostor(inspircd, running, tmp_path) -> None:
    """Someone not logged in holds the dealer's registered nick when the dealer starts:
    the dealer registers under another nick, logs in by SASL, has the services give its
    nick back (Anope: RECOVER) and only then joins its table; players then sit with it."""
    inspircd.register("banker", password("banker"))
    impostor = Person(inspircd.tls_port, "banker", ca_file=inspircd.ca_file)
    running(impostor)
    wait_for(lambda: any(c == "001" for c, *_ in impostor.lines), what="the impostor on the network")
    cfg = INSPIRCD_CFG
    host = DealerHost(inspircd.tls_address, ["#bank"], tmp_path / "dealer.sqlite", cfg, nick="banker", hands=1,
                      log_dir=tmp_path / "logs", seed=3,
                      network_options=login_options(inspircd, tmp_path, "deal", "banker", cfg)).start()
    running(host)
    assert host.wait_tables(HANG)
    assert host.client.nick == "banker" and host.client.account == "banker"
    assert impostor.nick != "banker" or any(c in ("ERROR", "KILL") for c, *_ in impostor.lines)
    assert inspircd.whois("banker")["banker"].account == "banker"
    for nick in ("p1", "p2"):
        running(PlayerBot(cfg, server=inspircd.tls_address, channels=["#bank"], dealer="banker", spec="call",
                          nick=nick, seed=len(nick),
                          network_options=network_options(cfg, "play", inspircd.tls_port, tls=True,
                                                  ca_file=str(inspircd.ca_file))).start())
    assert host.wait(HANG * 2) and host.error is None
    assert len(stored_hands(tmp_path / "dealer.sqlite")) == 1


def test_a_taken_nick_without_an_account_is_said_plainly(running, caplog) -> None:
    server = LoopbackServer().start()
    running(server)
    holder = Person(server.port, "plainbot")
    running(holder)
    wait_for(lambda: any(c == "001" for c, *_ in holder.lines), what="the holder on the network")
    caplog.set_level(logging.WARNING, logger="poki.irc")
    client = IrcClient(server.host, server.port, "plainbot", channels=["#x"]).start()
    running(client)
    wait_for(lambda: "#x" in client.joined, what="the client to join")
    assert client.nick == "plainbot_"
    assert any("the nick plainbot is taken; we are plainbot_" in r.getMessage() for r in caplog.records)


def test_server_passwords(running, tmp_path, caplog) -> None:
    """ngircd asking for a server password: the right one (from the environment) lets the
    bot in; a wrong one stops it with the server's words, after one attempt. The
    password is in no log line, even at DEBUG."""
    need("ngircd")
    secret = "server-secret-77"
    with Ngircd(tmp_path / "ngircd", password=secret) as net:
        caplog.set_level(logging.DEBUG)
        options = network_options(BASE, "play", net.port, environ={"POKI_IRC_SERVER_PASSWORD": secret})
        assert options.login is not None and options.login.mechanism == "none"
        good = IrcClient(net.host, net.port, "passer", channels=["#p"], login=options.login,
                         reconnect_min=0.2, reconnect_max=1.0).start()
        running(good)
        wait_for(lambda: "#p" in good.joined, what="the client with the right password to join")
        failures: list[str] = []
        bad = IrcClient(net.host, net.port, "blocked", login=Login(mechanism="none", server_password="wrong-one"),
                        reconnect_min=0.2, reconnect_max=1.0, on_failure=failures.append).start()
        running(bad)
        wait_for(lambda: failures, what="the refusal")
        assert "refused us before registration" in failures[0] and "Bad password" in failures[0]
        time.sleep(1.0)
        assert bad.attempts == 1 and bad.connects == 0
        assert not any(secret in r.getMessage() or "wrong-one" in r.getMessage() for r in caplog.records)


def test_sasl_secrets_stay_out_of_debug_logs(inspircd, running, tmp_path, caplog) -> None:
    inspircd.register("quiet", password("quiet"))
    caplog.set_level(logging.DEBUG)
    client = IrcClient(inspircd.host, inspircd.tls_port, "quiet", channels=["#q"],
                       tls=Tls(ca_file=str(inspircd.ca_file)), login=Login("quiet", password("quiet"))).start()
    running(client)
    wait_for(lambda: "#q" in client.joined, what="the client to join")
    assert client.account == "quiet"
    payload = base64.b64encode(f"quiet\0quiet\0{password('quiet')}".encode()).decode()
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert password("quiet") not in text and payload not in text
    assert password("quiet") not in repr(client.login)


def test_players_accept_the_dealer_by_its_account(inspircd, running, tmp_path) -> None:
    """With the dealer's account given, a player bot follows only lines the server tags
    with that account (IRCv3 account-tag). Someone not logged in who holds the dealer's
    nick before the dealer comes is an impostor to it, while a bot with no account to
    check pins the first user@host it saw under the dealer's nick, the impostor's (trust
    on first use), and then refuses the real dealer; the real dealer takes its nick back
    and deals to the checking bots."""
    inspircd.register("shuffler", password("shuffler"))
    cfg = INSPIRCD_CFG
    plain = network_options(cfg, "play", inspircd.tls_port, tls=True, ca_file=str(inspircd.ca_file))
    fake = Person(inspircd.tls_port, "shuffler", user="mallory", ca_file=inspircd.ca_file)
    running(fake)
    wait_for(lambda: any(c == "001" for c, *_ in fake.lines), what="the impostor on the network")
    fake.send("JOIN #acct")
    checking = PlayerBot(cfg, server=inspircd.tls_address, channels=["#acct"], dealer="shuffler",
                         dealer_account="shuffler", spec="call", nick="checker", seed=1,
                         network_options=plain).start()
    running(checking)
    trusting = PlayerBot(cfg, server=inspircd.tls_address, channels=["#acct"], dealer="shuffler", spec="call",
                         nick="truster", seed=2, network_options=plain).start()
    running(trusting)
    wait_for(lambda: "#acct" in checking.client.joined and "#acct" in trusting.client.joined,
             what="both bots in the channel")
    assert "account-tag" in checking.client.enabled
    fake.say("#acct", "Table: dealing at this table; type !sit to play.")
    wait_for(lambda: checking.feed.stats.impostor >= 1 and trusting.feed.stats.dealer_lines >= 1,
             what="the line to reach both bots")
    assert checking.feed.stats.dealer_lines == 0
    assert trusting.feed.pinned.endswith("@127.0.0.1") and trusting.feed.pinned.split("@")[0] == "mallory"
    second = PlayerBot(cfg, server=inspircd.tls_address, channels=["#acct"], dealer="shuffler",
                       dealer_account="shuffler", spec="call", nick="checker2", seed=3,
                       network_options=plain).start()
    running(second)
    host = DealerHost(inspircd.tls_address, ["#acct"], tmp_path / "dealer.sqlite", cfg, nick="shuffler", hands=2,
                      log_dir=tmp_path / "logs", seed=4,
                      network_options=login_options(inspircd, tmp_path, "deal", "shuffler", cfg)).start()
    running(host)
    assert host.wait(HANG * 2) and host.error is None
    dealt = stored_hands(tmp_path / "dealer.sqlite")
    assert len(dealt) == 2 and all("checker" in {p for p, _, _ in seats} for _, _, seats, *_ in dealt.values())
    wait_for(lambda: checking.seats["#acct"].stats.hands == 2, what="the checking bot to finish both hands")


def test_a_dealer_account_needs_a_server_that_tags_accounts(ngircd, running) -> None:
    """ngircd does not tag lines with accounts: a player told to check the dealer's
    account stops with the reason instead of trusting the nick."""
    bot = PlayerBot(NGIRCD_CFG, server=ngircd.address, channels=["#x"], dealer="dealer", dealer_account="dealer",
                    nick="careful").start()
    running(bot)
    assert bot.wait(HANG)
    assert "account-tag" in bot.failure and "--dealer-host" in bot.failure



def test_a_bot_takes_the_budget_of_the_servers_software_and_no_line_is_held(real_server) -> None:
    """With the default settings (flood_profile "auto") a bot reads the server's software
    from its welcome (004) and sends by that software's budget: 25 lines said at once
    leave no faster than the budget, and the server passes each on at once (within 3 s of
    leaving us; past its limit the server would hold the last ones 7 s on ngircd, 16 s on
    InspIRCd, as `line_arrivals` of tests/irc_servers.py measures). This replaces a test
    of the servers' own lower bounds: what is checked is what Poki does under them."""
    name, net = real_server
    choice = send_budget(BASE.irc)
    assert choice == BudgetChoice(SAFE, True)
    arrived: dict[str, float] = {}
    sent: dict[str, float] = {}

    def heard(person, command, prefix, target, text) -> None:  # a watcher's callback
        if command == "PRIVMSG" and text.startswith("line "):
            arrived.setdefault(text, time.monotonic())

    listener = Person(net.port, "listener", on_line=heard)
    client = IrcClient("127.0.0.1", net.port, "talker", budget=choice.budget, by_server=choice.by_server,
                       reconnect_min=0.2, reconnect_max=2.0, rng=np.random.default_rng(3)).start()
    try:
        wait_for(lambda: client.registered and any(c == "001" for c, *_ in listener.lines), what="both connected")
        wait_for(lambda: client.budget.name == name, what=f"the {name} budget")
        budget = PROFILES[name]
        assert client.budget == budget and client.server_version.lower().startswith(name)
        for k in range(25):
            text = f"line {k}"
            client.say("listener", text, on_sent=lambda text=text: sent.setdefault(text, time.monotonic()))
        wait_for(lambda: len(arrived) == 25, what="the 25 lines")
        assert sorted(arrived, key=arrived.__getitem__) == [f"line {k}" for k in range(25)]
        assert sent["line 24"] - sent["line 0"] >= (25 - budget.burst) / budget.rate * 0.95
        held = {text: round(arrived[text] - sent[text], 2) for text in sent}
        assert max(held.values()) < 3.0, held
    finally:
        client.stop()
        listener.close()


def test_plain_text_on_the_tls_port_stops_and_tls_on_the_plain_port_warns(real_server, running, caplog) -> None:
    """Forgetting --tls on a server's TLS port: the server answers with a TLS alert, and the
    bot stops at once saying to add --tls, after one attempt (it used to try again forever
    without a word). --tls on the plain port: the server waits for the end of a line that
    never comes; the bot says (a warning, each try) to drop --tls, or stops saying the port
    does not speak TLS should the server answer in plain text."""
    name, net = real_server
    cfg = dataclasses.replace(NGIRCD_CFG, irc=dataclasses.replace(NGIRCD_CFG.irc, connect_timeout_seconds=3.0))
    bot = PlayerBot(cfg, server=net.tls_address, channels=["#holdem"], dealer="dealer", nick="forgetful",
                    network_options=network_options(cfg, "play", net.tls_port, tls=False)).start()
    running(bot)
    assert bot.wait(HANG), f"{name}: the bot kept trying plain text on the TLS port"
    assert "answered in TLS" in bot.failure and "connect with --tls" in bot.failure, (name, bot.failure)
    time.sleep(1.0)  # reconnect_min is 0.2 s: a retry would have come by now
    assert bot.client.attempts == 1 and bot.client.connects == 0
    with caplog.at_level(logging.WARNING, logger="poki.irc"):
        bot = PlayerBot(cfg, server=net.address, channels=["#holdem"], dealer="dealer", nick="forgetful2",
                        network_options=network_options(cfg, "play", net.port, tls=True, tls_insecure=True)).start()
        running(bot)
        wait_for(lambda: (bot.failure and "--no-tls" in bot.failure)
                 or any("drop --tls" in r.getMessage() for r in caplog.records), what="the hint to drop --tls")
    assert bot.client.connects == 0


def test_the_start_line_and_the_log_say_which_budget(ngircd, tmp_path) -> None:
    """`poki irc play` with the built-in settings on ngircd: its start line says the budget
    goes by the server's software, then it says the server's and the budget it took."""
    command = [sys.executable, "-m", "agent.cli", "irc", "play", "--server", ngircd.address,
               "--channel", "#budget", "--no-report"]
    proc = subprocess.Popen(command, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        wait_for(lambda: any("send budget ngircd" in line for line in out), what="the budget line")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(HANG)
        reader.join(HANG)
    text = "".join(out)
    assert "send budget by the server's software (until it answers, safe: 5 lines at once, then 0.5 a second)" \
        in text, text
    assert "runs 'ngircd-" in text and f"send budget {PROFILES['ngircd'].describe()}" in text, text


def test_a_server_ends_with_the_process_that_started_it(tmp_path) -> None:
    """Killed outright (no stop(), no atexit), the starter leaves no server behind."""
    need("ngircd")
    script = ("import os\nfrom irc_servers import Ngircd\n"
              f"net = Ngircd({str(tmp_path / 'ngircd')!r}).start()\n"
              "print(' '.join(str(p.pid) for _, p in net.processes), flush=True)\nos._exit(0)\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env={**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT), str(ROOT / "tests")))},
                         capture_output=True, text=True, timeout=HANG)
    pids = [int(p) for p in out.stdout.split()]
    assert pids, out.stderr

    def gone() -> bool:
        for pid in pids:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                continue
            status = Path(f"/proc/{pid}/status")
            if status.exists() and "State:\tZ" not in status.read_text():
                return False
        return True

    wait_for(gone, what="the server to end with its starter")
