"""How a bot reaches an IRC network: TLS and the login (account, SASL or NickServ, server
password) from the command line, the ``[irc]`` settings and the secrets.

Secrets never come from the command line (other users see it in ``ps``) nor from the
settings file (which gets shared and committed): each comes from a file named on the
command line or in the settings (its first line), or from the environment. They are
kept in :class:`connectors.irc.identity.Login`, out of every ``repr`` and log line.
"""
from __future__ import annotations

import logging
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent.config import Config, ConfigError, IrcConfig
from agent.inputs import open_input
from connectors.irc.identity import Login, LoginError, Tls
from connectors.irc.servers import PROFILES, SAFE, SendBudget

__all__ = ["BudgetChoice", "NetworkError", "NetworkOptions", "PASSWORD_ENV", "SERVER_PASSWORD_ENV", "TLS_PORT",
           "port_hint", "network_options", "read_secret", "send_budget"]

log = logging.getLogger("poki.irc")

TLS_PORT = 6697  # the port of IRC over TLS: a server on it is taken to speak TLS
# Ports that networks use for TLS (6697 by IRCv3's recommendation, 7000 by custom) and
# for plain text: a bot told the other is told it may be wrong (log warning, not refused).
TLS_PORTS = (6697, 7000)
PLAIN_PORTS = (6667, 6668, 6669)
PASSWORD_ENV = {"play": "POKI_IRC_PASSWORD", "deal": "POKI_IRC_DEALER_PASSWORD"}
SERVER_PASSWORD_ENV = "POKI_IRC_SERVER_PASSWORD"
MAX_SECRET_BYTES = 1024


class NetworkError(ValueError):
    """Network settings that cannot work (the message says which and why)."""


@dataclass(frozen=True)
class NetworkOptions:
    """What an :class:`~connectors.irc.client.IrcClient` needs beyond host and port."""

    tls: Tls | None = None
    login: Login | None = None
    connect_timeout: float = 30.0

    def describe(self) -> str:
        """One line for the start-up message (no secret in it)."""
        parts = []
        if self.tls is None:
            parts.append("plain text")
        else:
            parts.append("TLS" + ("" if self.tls.verify else " (certificate not checked)")
                         + (" with a client certificate" if self.tls.cert_file else ""))
        login = self.login
        if login is not None and login.mechanism != "none":
            how = {"plain": "SASL PLAIN", "external": "SASL EXTERNAL", "nickserv": f"{login.services} IDENTIFY"}
            parts.append(f"account {login.account or '(the nick)'} by {how[login.mechanism]}")
        if login is not None and login.server_password:
            parts.append("server password")
        return ", ".join(parts)


@dataclass(frozen=True)
class BudgetChoice:
    """The send budget a bot starts with, and whether the budget of the server's software
    replaces it once the server names it (connectors.irc.servers)."""

    budget: SendBudget
    by_server: bool


def send_budget(irc: IrcConfig, flood_rate: float | None = None) -> BudgetChoice:
    """The bots' send budget from the ``[irc]`` settings: ``flood_profile`` "auto" (the
    default) goes by the server's software, unless flood_burst or flood_lines_per_second
    is set, which makes it "custom" (the safe value for the one not set); a profile name
    fixes that profile. ``flood_rate`` (--no-flood-limit: 0) overrides the rate.
    ConfigError for a profile that does not exist."""
    profile = irc.flood_profile
    own = irc.flood_burst is not None or irc.flood_lines_per_second is not None
    if flood_rate is not None:
        burst = irc.flood_burst if irc.flood_burst is not None else SAFE.burst
        return BudgetChoice(SendBudget("--no-flood-limit" if flood_rate == 0 else "custom", burst, flood_rate), False)
    if profile == "custom" or (profile == "auto" and own):
        burst = irc.flood_burst if irc.flood_burst is not None else SAFE.burst
        rate = irc.flood_lines_per_second if irc.flood_lines_per_second is not None else SAFE.rate
        return BudgetChoice(SendBudget("custom", burst, rate), False)
    if profile == "auto":
        return BudgetChoice(SAFE, True)
    if profile not in PROFILES:
        raise ConfigError(f"irc.flood_profile must be auto, custom or one of {', '.join(PROFILES)}, got {profile!r}")
    return BudgetChoice(PROFILES[profile], False)


def read_secret(path: str | Path, what: str) -> str:
    """The first line of ``path`` (at most 1 KiB, the line end dropped); NetworkError
    naming the file and ``what`` it should hold when it cannot be read or is empty. A file
    other users may read is used, with a warning."""
    path = Path(path)
    try:
        with open_input(path) as handle:  # a FIFO or device is refused unread
            mode = os.fstat(handle.fileno()).st_mode
            data = handle.read(MAX_SECRET_BYTES + 1)
    except OSError as exc:
        raise NetworkError(f"cannot read {what} from {path}: {exc.strerror or exc}") from None
    line = data.split(b"\n", 1)[0].rstrip(b"\r")
    if len(line) > MAX_SECRET_BYTES:
        raise NetworkError(f"{path}: {what} longer than {MAX_SECRET_BYTES} bytes")
    if not line:
        raise NetworkError(f"{path}: no {what} on its first line")
    if b"\0" in line:
        raise NetworkError(f"{path}: {what} holds a NUL byte")
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        log.warning("%s can be read by other users (chmod 600 it): it holds %s", path, what)
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        raise NetworkError(f"{path}: {what} is not UTF-8 text") from None


def _secret(file_arg: str | None, env_name: str, file_setting: str, what: str, environ: Mapping[str, str]) -> str:
    if file_arg:
        return read_secret(file_arg, what)
    value = environ.get(env_name, "")
    if value:
        if len(value.encode("utf-8")) > MAX_SECRET_BYTES or any(ch in value for ch in "\r\n\0"):
            raise NetworkError(f"${env_name}: {what} must be one line of at most {MAX_SECRET_BYTES} bytes")
        return value
    if file_setting:
        return read_secret(file_setting, what)
    return ""


def port_hint(port: int, tls: bool) -> str:
    """A warning when ``port`` is one networks use for the other kind of connection ("":
    none)."""
    if not tls and port in TLS_PORTS:
        return (f"port {port} is usually IRC over TLS, and this connection is plain text: if the server "
                f"does not answer (or answers in TLS), add --tls")
    if tls and port in PLAIN_PORTS:
        return (f"port {port} is usually plain-text IRC, and this connection uses TLS: if the server says "
                f"it does not speak TLS, drop --tls (or use its TLS port, often {TLS_PORT})")
    return ""


def network_options(config: Config, role: str, port: int, *, tls: bool | None = None, tls_insecure: bool = False,
                    ca_file: str | None = None, cert_file: str | None = None, account: str | None = None,
                    password_file: str | None = None, server_password_file: str | None = None,
                    sasl: str | None = None, password_over_plain_text: bool = False,
                    environ: Mapping[str, str] | None = None) -> NetworkOptions:
    """The TLS settings and login of the ``role`` ("play" or "deal") connecting to
    ``port``: the command line's values (the keyword arguments) over the environment over
    the ``[irc]`` settings. NetworkError says what does not fit together: among it, an
    account password that would cross the network in clear text (SASL PLAIN or NickServ
    IDENTIFY without TLS) unless ``password_over_plain_text`` (or the setting) allows it.
    A port that usually carries the other kind of connection is warned about."""
    if role not in PASSWORD_ENV:
        raise ValueError(f"role must be play or deal, got {role!r}")
    irc = config.irc
    env = os.environ if environ is None else environ
    dealer = role == "deal"
    use_tls = tls if tls is not None else (irc.tls == "on" or (irc.tls == "auto" and port == TLS_PORT))
    ca = ca_file or irc.tls_ca_file
    cert = cert_file or (irc.dealer_tls_cert_file if dealer else irc.tls_cert_file)
    for name, path in (("--tls-ca", ca), ("--tls-cert", cert)):
        if path and not Path(path).is_file():
            raise NetworkError(f"{name}: no file {path}")
    if not use_tls and (cert or tls_insecure or ca_file):
        given = "--tls-cert" if cert else "--tls-insecure" if tls_insecure else "--tls-ca"
        raise NetworkError(f"{given} needs TLS: add --tls (or connect to port {TLS_PORT})")
    tls_settings = Tls(verify=irc.tls_verify and not tls_insecure, ca_file=ca, cert_file=cert) if use_tls else None
    hint = port_hint(port, use_tls)
    if hint:
        log.warning("%s", hint)
    if tls_settings is not None:
        try:
            tls_settings.context()  # a file that is no certificate fails here, not at each connection
        except (OSError, ValueError) as exc:
            raise NetworkError(f"TLS: cannot use {cert or ca or 'the system CAs'}: {exc}") from None

    password = _secret(password_file, PASSWORD_ENV[role],
                       irc.dealer_password_file if dealer else irc.password_file,
                       "the account password", env)
    server_password = _secret(server_password_file, SERVER_PASSWORD_ENV, irc.server_password_file,
                              "the server password", env)
    name = account if account is not None else (irc.dealer_account if dealer else irc.account)
    mode = sasl or irc.sasl
    if mode == "auto":
        mechanism = "plain" if password else "external" if cert else "none"
    elif mode == "off":
        mechanism = "nickserv" if password else "none"
    else:
        mechanism = mode
    if mechanism == "plain" and not password:
        raise NetworkError(f"SASL PLAIN needs the account's password: --password-file FILE or ${PASSWORD_ENV[role]}")
    if mechanism == "external" and not cert:
        raise NetworkError("SASL EXTERNAL needs a client certificate: --tls-cert FILE (PEM with its key)")
    if password and mechanism in ("plain", "nickserv") and not use_tls \
            and not (password_over_plain_text or irc.password_over_plain_text):
        how = "SASL PLAIN" if mechanism == "plain" else f"{irc.services_nick} IDENTIFY"
        raise NetworkError(f"{how} would send the account password in clear text (no TLS): connect with --tls "
                           f"(the server's TLS port, often {TLS_PORT}); only on a network you trust (loopback, "
                           f"your own) allow it with --password-over-plain-text "
                           f"([irc] password_over_plain_text = true)")
    if name and mechanism == "none":
        raise NetworkError(f"--account {name} needs its password (--password-file FILE or ${PASSWORD_ENV[role]}) "
                           f"or a client certificate (--tls-cert FILE)")
    login = None
    if mechanism != "none" or server_password:
        try:
            login = Login(account=name, password=password, mechanism=mechanism, server_password=server_password,
                          services=irc.services_nick)
        except LoginError as exc:
            raise NetworkError(str(exc)) from None
    return NetworkOptions(tls=tls_settings, login=login, connect_timeout=irc.connect_timeout_seconds)
