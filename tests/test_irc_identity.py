"""Logging in to an IRC network, piece by piece: the capability negotiation and SASL
exchange (connectors.irc.identity) against the lines of IRCv3's specifications, the
services' answers to IDENTIFY, where the bots' TLS settings and secrets come from
(agent.play.irc.network), the [irc] settings' refusals and what `irc deal --help` and
`irc play --help` say. The same against real servers: tests/test_irc_networks.py."""
from __future__ import annotations

import base64
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from agent.config import Config, ConfigError, parse_config
from agent.play.irc.network import NetworkError, network_options, read_secret
from connectors.irc.identity import Login, LoginError, Negotiation, nickserv_verdict, parse_line, sasl_chunks

ROOT = Path(__file__).resolve().parent.parent


def test_lines_are_split_into_prefix_command_and_parameters() -> None:
    assert parse_line(":irc.test CAP * LS :multi-prefix sasl") == ("irc.test", "CAP", ["*", "LS", "multi-prefix sasl"])
    assert parse_line("AUTHENTICATE +") == ("", "AUTHENTICATE", ["+"])
    assert parse_line("AUTHENTICATE :+") == ("", "AUTHENTICATE", ["+"])
    assert parse_line("@time=x;account=a :n!u@h PRIVMSG #c :hi there") == ("n!u@h", "PRIVMSG", ["#c", "hi there"])
    assert parse_line(":srv 904 poki :SASL authentication failed")[1:] == ("904", ["poki", "SASL authentication failed"])
    assert parse_line("") == ("", "", [])


def test_sasl_responses_are_cut_at_400_bytes() -> None:
    """IRCv3 SASL: base64 in lines of 400; a last line of exactly 400 is followed by
    ``+``; an empty response is ``+``."""
    assert sasl_chunks(b"") == ["AUTHENTICATE +"]
    exact = sasl_chunks(b"x" * 300)  # 400 characters of base64
    assert [len(line.split(" ")[1]) for line in exact] == [400, 1] and exact[-1] == "AUTHENTICATE +"
    long = sasl_chunks(b"y" * 700)
    text = "".join(line.split(" ")[1] for line in long)
    assert [len(line.split(" ")[1]) for line in long] == [400, 400, 136]
    assert base64.b64decode(text) == b"y" * 700


def run(negotiation: Negotiation, lines: list[str]) -> list[str]:
    """Feed the server's lines as the client would; what it sends back."""
    sent = []
    for line in lines:
        _, command, params = parse_line(line)
        sent += negotiation.feed(command, params)
    return sent


def test_sasl_plain_over_a_multiline_cap_ls() -> None:
    n = Negotiation(Login("acct", "pw"), "nick")
    assert n.opening() == ["CAP LS 302"]
    sent = run(n, [":s CAP * LS * :multi-prefix away-notify",
                   ":s CAP * LS :sasl=EXTERNAL,PLAIN account-tag",
                   ":s CAP nick ACK :sasl",
                   "AUTHENTICATE +",
                   ":s 900 nick nick!u@h acct :You are now logged in as acct",
                   ":s 903 nick :SASL authentication successful"])
    assert sent == ["CAP REQ :sasl", "AUTHENTICATE PLAIN",
                    "AUTHENTICATE " + base64.b64encode(b"acct\0acct\0pw").decode(), "CAP END"]
    assert (n.finished, n.account, n.sasl, n.failure) == (True, "acct", "ok", None)


def test_sasl_external_sends_an_empty_response() -> None:
    n = Negotiation(Login(mechanism="external"), "nick")
    assert run(n, [":s CAP * LS :sasl", ":s CAP nick ACK :sasl", "AUTHENTICATE +"]) == \
        ["CAP REQ :sasl", "AUTHENTICATE EXTERNAL", "AUTHENTICATE +"]


@pytest.mark.parametrize("lines", [
    [":s CAP * LS :multi-prefix"],  # no SASL at all
    [":s CAP * LS :sasl=EXTERNAL"],  # not our mechanism
    [":s CAP * LS :sasl", ":s CAP nick NAK :sasl"],  # refused
    [":s CAP * LS :sasl", ":s CAP nick ACK :sasl", "AUTHENTICATE +", ":s 906 nick :SASL authentication aborted"],
])
def test_without_usable_sasl_the_negotiation_ends_for_nickserv(lines) -> None:
    n = Negotiation(Login("acct", "pw"), "nick")
    sent = run(n, lines)
    assert sent[-1] == "CAP END" and sent.count("CAP END") == 1
    assert (n.finished, n.sasl, n.account, n.failure) == (True, "unavailable", None, None)


def test_a_refused_password_is_a_failure_not_a_retry() -> None:
    n = Negotiation(Login("acct", "pw"), "nick")
    sent = run(n, [":s CAP * LS :sasl", ":s CAP nick ACK :sasl", "AUTHENTICATE +",
                   ":s 904 nick :SASL authentication failed"])
    assert "CAP END" not in sent
    assert n.failure is not None and "SASL PLAIN" in n.failure and "'acct'" in n.failure
    assert "wrong account name or password" in n.failure and "904" in n.failure
    external = Negotiation(Login(mechanism="external"), "nick")
    run(external, [":s CAP * LS :sasl", ":s CAP nick ACK :sasl", "AUTHENTICATE +", ":s 904 nick :failed"])
    assert "CERT ADD" in external.failure


def test_no_login_sends_nothing_and_secrets_stay_out_of_repr() -> None:
    n = Negotiation(None, "nick")
    assert n.opening() == [] and n.finished
    assert run(n, [":s CAP * LS :sasl", "AUTHENTICATE +"]) == []
    login = Login("acct", "hunter2", server_password="letmein")
    assert "hunter2" not in repr(login) and "letmein" not in repr(login)
    with pytest.raises(LoginError, match="needs the account's password"):
        Login("acct", "")
    with pytest.raises(LoginError, match="line break"):
        Login("acct", "pw\r\nQUIT")
    with pytest.raises(LoginError, match="unknown login mechanism"):
        Login("acct", "pw", mechanism="scram")


@pytest.mark.parametrize("text, verdict", [
    ("Password accepted - you are now recognized.", "accepted"),  # Anope
    ("You are now identified for \x02poki\x02.", "accepted"),  # Atheme
    ("Password incorrect.", "refused"),  # Anope
    ("Invalid password for \x02poki\x02.", "refused"),  # Atheme
    ("\x02poki\x02 is not registered.", "refused"),
    ("This nickname is registered. Please choose a different nickname, or identify via \x02/msg NickServ "
     "IDENTIFY password\x02.", None),
])
def test_services_answers_to_identify(text, verdict) -> None:
    assert nickserv_verdict(text) == verdict


def test_secrets_come_from_the_command_line_file_then_the_environment_then_the_settings(tmp_path) -> None:
    # Over TLS (port 6697): an account password never crosses the network in clear text.
    for name, text in (("cli", "from-cli"), ("cfg", "from-config"), ("srv", "server-pw")):
        (tmp_path / name).write_text(f"{text}\nsecond line ignored\n")
        (tmp_path / name).chmod(0o600)
    cfg = parse_config({"irc": {"password_file": str(tmp_path / "cfg"), "account": "poki"}})
    env = {"POKI_IRC_PASSWORD": "from-env", "POKI_IRC_SERVER_PASSWORD": "env-server"}
    login = network_options(cfg, "play", 6697, password_file=str(tmp_path / "cli"), environ=env).login
    assert (login.password, login.server_password, login.account, login.mechanism) == \
        ("from-cli", "env-server", "poki", "plain")
    assert network_options(cfg, "play", 6697, environ=env).login.password == "from-env"
    assert network_options(cfg, "play", 6697, environ={}).login.password == "from-config"
    # The dealer reads its own variable and its own settings, not the player's.
    deal = network_options(cfg, "deal", 6697, environ={"POKI_IRC_PASSWORD": "player's"})
    assert deal.login is None
    deal = network_options(cfg, "deal", 6697, environ={"POKI_IRC_DEALER_PASSWORD": "dealer's"})
    assert (deal.login.password, deal.login.account) == ("dealer's", "")
    assert network_options(Config(), "play", 6697, server_password_file=str(tmp_path / "srv"),
                           environ={}).login.server_password == "server-pw"
    assert network_options(Config(), "play", 6697, environ={}).login is None


def test_tls_settings_and_what_does_not_fit(tmp_path) -> None:
    cfg = Config()
    assert network_options(cfg, "play", 6697, environ={}).tls is not None  # the TLS port hints at TLS
    assert network_options(cfg, "play", 6667, environ={}).tls is None
    assert network_options(cfg, "play", 6697, tls=False, environ={}).tls is None
    insecure = network_options(cfg, "play", 7000, tls=True, tls_insecure=True, environ={}).tls
    assert insecure is not None and insecure.verify is False
    assert network_options(parse_config({"irc": {"tls": "on"}}), "play", 6667, environ={}).tls is not None
    pem = tmp_path / "not-a-cert.pem"
    pem.write_text("hello\n")
    with pytest.raises(NetworkError, match="needs TLS"):
        network_options(cfg, "play", 6667, tls_insecure=True, environ={})
    with pytest.raises(NetworkError, match="no file"):
        network_options(cfg, "play", 6697, cert_file=str(tmp_path / "missing.pem"), environ={})
    with pytest.raises(NetworkError, match="TLS: cannot use"):
        network_options(cfg, "play", 6697, cert_file=str(pem), environ={})
    with pytest.raises(NetworkError, match="SASL PLAIN needs the account's password"):
        network_options(cfg, "play", 6697, sasl="plain", environ={})
    with pytest.raises(NetworkError, match="SASL EXTERNAL needs a client certificate"):
        network_options(cfg, "play", 6697, sasl="external", environ={})
    with pytest.raises(NetworkError, match="needs its password"):
        network_options(cfg, "play", 6697, account="poki", environ={})
    with pytest.raises(NetworkError, match=r"\$POKI_IRC_PASSWORD: .* one line"):
        network_options(cfg, "play", 6697, environ={"POKI_IRC_PASSWORD": "a\nb"})


def test_an_account_password_goes_over_tls_only_unless_allowed(caplog) -> None:
    """SASL PLAIN and NickServ IDENTIFY over plain text are refused with the reason and
    the way out; --password-over-plain-text or the setting allows them; SASL EXTERNAL and
    a server password alone are not concerned."""
    env = {"POKI_IRC_PASSWORD": "pw", "POKI_IRC_SERVER_PASSWORD": "srv"}
    for sasl, how in (("auto", "SASL PLAIN"), ("plain", "SASL PLAIN"), ("off", "NickServ IDENTIFY")):
        with pytest.raises(NetworkError, match=f"{how} would send the account password in clear text.*--tls.*"
                                               f"--password-over-plain-text"):
            network_options(Config(), "play", 6667, sasl=sasl, environ=env)
        allowed = network_options(Config(), "play", 6667, sasl=sasl, password_over_plain_text=True, environ=env)
        assert allowed.tls is None and allowed.login.password == "pw"
        by_setting = network_options(parse_config({"irc": {"password_over_plain_text": True}}), "play", 6667,
                                     sasl=sasl, environ=env)
        assert by_setting.login.password == "pw"
        assert network_options(Config(), "play", 6697, sasl=sasl, environ=env).login.password == "pw"  # TLS
    assert network_options(Config(), "play", 6667, environ={"POKI_IRC_SERVER_PASSWORD": "srv"}).login.server_password
    with pytest.raises(ConfigError, match="password_over_plain_text: expected true or false"):
        parse_config({"irc": {"password_over_plain_text": "yes"}})


def test_a_port_of_the_other_kind_is_warned_about(caplog) -> None:
    """Port 6697 or 7000 without TLS, or 6667 with it: a warning that says what to change."""
    for port, tls, word in ((6697, False, "add --tls"), (7000, None, "add --tls"), (6667, True, "drop --tls")):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="poki.irc"):
            network_options(Config(), "play", port, tls=tls, environ={})
        assert any(word in r.getMessage() and str(port) in r.getMessage() for r in caplog.records), (port, tls)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="poki.irc"):
        network_options(Config(), "play", 6697, environ={})  # TLS on the TLS port
        network_options(Config(), "play", 6667, environ={})  # plain on the plain port
    assert not caplog.records


def test_secret_files_are_read_with_care(tmp_path, caplog) -> None:
    path = tmp_path / "pw"
    with pytest.raises(NetworkError, match="cannot read the account password"):
        read_secret(path, "the account password")
    path.write_text("\n")
    with pytest.raises(NetworkError, match="no the account password|no .* on its first line"):
        read_secret(path, "the account password")
    path.write_bytes(b"x" * 2000)
    with pytest.raises(NetworkError, match="longer than 1024 bytes"):
        read_secret(path, "the account password")
    path.write_text("s3cret\r\n")
    path.chmod(0o644)
    assert read_secret(path, "the account password") == "s3cret"
    assert any("can be read by other users" in r.getMessage() for r in caplog.records)
    assert not any("s3cret" in r.getMessage() for r in caplog.records)


def test_the_network_settings_are_checked() -> None:
    for section, why in [({"tls": "maybe"}, "irc.tls must be one of auto, on, off"),
                         ({"sasl": "scram"}, "irc.sasl must be one of"),
                         ({"tls_verify": "no"}, "expected true or false"),
                         ({"connect_timeout_seconds": 0}, "connect_timeout_seconds must be a positive number"),
                         ({"account": "two words"}, "cannot hold a space"),
                         ({"dealer_db": ""}, "dealer_db must be a non-empty string"),
                         ({"password_file": "a\nb"}, "on one line")]:
        with pytest.raises(ConfigError, match=why):
            parse_config({"irc": section})


@pytest.mark.parametrize("role, files", [
    ("deal", ["dealer.sqlite", "report-dealer", "[irc] dealer_db", "$POKI_IRC_DEALER_PASSWORD"]),
    ("play", ["poki.sqlite", "[report] out", "$POKI_IRC_PASSWORD", "--dealer-host"]),
])
def test_help_says_where_settings_live_and_lists_the_network_ones(role, files) -> None:
    out = subprocess.run([sys.executable, "-m", "agent.cli", "irc", role, "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120).stdout
    for text in ["--config FILE", "[irc] section", 'tls = "auto"', "tls_verify = true", 'sasl = "auto"',
                 "server_password_file", "--tls-insecure", "--tls-ca", "--tls-cert", "--password-file",
                 "never taken on the command line", *files]:
        assert text in out, text
