"""Who a bot is on an IRC network, and how it proves it: TLS settings, the account it
logs in to, and the exchange that logs it in while the connection registers.

Pure protocol, no I/O: :class:`Negotiation` reads the server's lines of one connection
and answers with the lines to send, in the order of IRCv3's capability negotiation
(``CAP LS 302`` before ``NICK``/``USER``, so the server holds the registration until
``CAP END``) and SASL 3.1 (``AUTHENTICATE``, numerics 900-908). The client
(connectors.irc.client) does the sending, the time limits and what follows: NickServ
``IDENTIFY`` when the server offers no SASL, and regaining our nick.

Secrets (the account and server passwords) live in :class:`Login` only, out of its
``repr``, and the lines that carry them are sent by the client without ever being logged.
"""
from __future__ import annotations

import base64
import re
import ssl
from dataclasses import dataclass, field

__all__ = ["Login", "LoginError", "Negotiation", "REGAIN_COMMANDS", "Tls", "nickserv_verdict",
           "parse_line", "sasl_chunks"]

SASL_CHUNK = 400  # AUTHENTICATE carries at most 400 bytes of base64 a line
MECHANISMS = ("plain", "external")
# What services call giving a registered nick back to its owner: Atheme REGAIN (Libera,
# OFTC ...), Anope 2.0 RECOVER, and the older GHOST (kill the holder, then take the nick).
REGAIN_COMMANDS = ("REGAIN", "RECOVER", "GHOST")
# The server's lines the negotiation reads (the client hands them over).
COMMANDS = frozenset({"CAP", "AUTHENTICATE", "900", "901", "902", "903", "904", "905", "906", "907", "908"})


class LoginError(ValueError):
    """Settings that cannot log in (a mechanism without what it needs ...)."""


@dataclass(frozen=True, slots=True)
class Tls:
    """TLS for the connection. The server's certificate is verified against the system's
    CAs (or ``ca_file``) and its host name unless ``verify`` is off; ``cert_file`` is our
    client certificate with its key (PEM), for CertFP and SASL EXTERNAL."""

    verify: bool = True
    ca_file: str = ""
    cert_file: str = ""

    def context(self) -> ssl.SSLContext:
        """The SSL context; OSError/ssl.SSLError naming the file that cannot be read."""
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=self.ca_file or None)
        if not self.verify:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        if self.cert_file:
            context.load_cert_chain(self.cert_file)
        return context


@dataclass(frozen=True, slots=True)
class Login:
    """Who we are: ``account`` (empty: the nick), its ``password``, how we log in
    (``mechanism``: plain or external SASL, nickserv for IDENTIFY only, none for no
    account), the server password (``PASS``) and the nick of the services that take
    IDENTIFY and REGAIN."""

    account: str = ""
    password: str = field(default="", repr=False)
    mechanism: str = "plain"
    server_password: str = field(default="", repr=False)
    services: str = "NickServ"

    def __post_init__(self) -> None:
        if self.mechanism not in (*MECHANISMS, "nickserv", "none"):
            raise LoginError(f"unknown login mechanism {self.mechanism!r} (plain, external, nickserv or none)")
        if self.mechanism in ("plain", "nickserv") and not self.password:
            raise LoginError(f"logging in by {self.mechanism.upper()} needs the account's password")
        for name in ("account", "password", "server_password", "services"):
            value = getattr(self, name)
            if any(ch in value for ch in "\r\n\0"):
                raise LoginError(f"the {name.replace('_', ' ')} cannot hold a line break or NUL")
        if " " in self.account or " " in self.services:
            raise LoginError("an account or services nick cannot hold a space")

    @property
    def sasl(self) -> bool:
        return self.mechanism in MECHANISMS

    def name(self, nick: str) -> str:
        return self.account or nick


def parse_line(line: str) -> tuple[str, str, list[str]]:
    """``[@tags] [:prefix] COMMAND params... [:trailing]`` -> (prefix, COMMAND, params),
    tags dropped, the trailing parameter last in ``params``."""
    if line[:1] == "@":
        line = line.partition(" ")[2].lstrip(" ")
    prefix = ""
    if line[:1] == ":":
        prefix, _, line = line[1:].partition(" ")
    head, sep, trailing = line.partition(" :")
    words = head.split()
    if not words:
        return prefix, "", []
    params = words[1:]
    if sep:
        params.append(trailing)
    return prefix, words[0].upper(), params


def sasl_chunks(payload: bytes) -> list[str]:
    """The AUTHENTICATE lines of one SASL response: base64 in pieces of 400, ``+`` for an
    empty response or after a last piece of exactly 400."""
    text = base64.b64encode(payload).decode("ascii")
    if not text:
        return ["AUTHENTICATE +"]
    lines = [f"AUTHENTICATE {text[i:i + SASL_CHUNK]}" for i in range(0, len(text), SASL_CHUNK)]
    if len(text) % SASL_CHUNK == 0:
        lines.append("AUTHENTICATE +")
    return lines


class Negotiation:
    """One connection's capability negotiation and SASL exchange.

    :meth:`opening` gives the lines to send before ``NICK``/``USER``; :meth:`feed` takes
    each CAP, AUTHENTICATE and 900-908 line and returns what to answer. Capabilities are
    asked for one per ``CAP REQ`` (a refused one refuses no other); ``CAP END`` goes once
    every request is answered and SASL is over. Afterwards: ``finished`` (``CAP END``
    sent, or no negotiation), ``enabled`` (the capabilities the server granted),
    ``account`` (the account the server says we are logged in to, or None), ``sasl``
    ("ok"; "unavailable": the server offers no SASL or not our mechanism; "failed"; None
    before the answer) and ``failure`` (why logging in failed for good: a wrong password
    is not fixed by trying again).

    >>> n = Negotiation(Login("poki", "s3cret"), "poki")
    >>> n.opening()
    ['CAP LS 302']
    >>> n.feed("CAP", ["*", "LS", "multi-prefix sasl=PLAIN,EXTERNAL"])
    ['CAP REQ :sasl']
    >>> n.feed("CAP", ["*", "ACK", "sasl"])
    ['AUTHENTICATE PLAIN']
    >>> n.feed("AUTHENTICATE", ["+"])
    ['AUTHENTICATE cG9raQBwb2tpAHMzY3JldA==']
    >>> n.feed("900", ["poki", "poki!poki@host", "poki", "You are now logged in as poki"])
    []
    >>> n.feed("903", ["poki", "SASL authentication successful"]), n.account, n.sasl
    (['CAP END'], 'poki', 'ok')
    """

    def __init__(self, login: Login | None, nick: str, capabilities: tuple[str, ...] = ()) -> None:
        self.login = login
        self.nick = nick
        self.mechanism = login.mechanism if login is not None and login.sasl else ""
        self.wanted = tuple(c.lower() for c in capabilities)
        self.finished = not self.mechanism and not self.wanted
        self.enabled: set[str] = set()
        self.account: str | None = None
        self.sasl: str | None = None
        self.failure: str | None = None
        self.offered: list[str] = []  # the SASL mechanisms the server lists, when it does
        self._ls: list[str] = []  # capabilities of a CAP LS spread over several lines
        self._asked: set[str] = set()  # requests not answered yet
        self._authenticating = False

    def opening(self) -> list[str]:
        return [] if self.finished else ["CAP LS 302"]

    def _maybe_end(self) -> list[str]:
        if self.finished or self._asked or self._authenticating:
            return []
        self.finished = True
        return ["CAP END"]

    def _sasl_over(self, outcome: str) -> list[str]:
        self.sasl = outcome
        self._authenticating = False
        return self._maybe_end()

    def _fail(self, reason: str) -> list[str]:
        self.failure = reason
        self.sasl = "failed"
        self._authenticating = False
        self.finished = True
        return []

    def feed(self, command: str, params: list[str]) -> list[str]:
        if command == "CAP":
            return self._cap(params)
        if command == "AUTHENTICATE":
            return self._authenticate(params)
        text = params[-1] if params else ""
        if command == "900":  # RPL_LOGGEDIN <nick> <nick!user@host> <account> :text
            if len(params) >= 3:
                self.account = params[2]
            return []
        if command == "901":  # RPL_LOGGEDOUT
            self.account = None
            return []
        if not self._authenticating:
            return []  # SASL numerics of an exchange we are not in
        if command == "903":  # RPL_SASLSUCCESS
            return self._sasl_over("ok")
        if command == "904":  # ERR_SASLFAIL
            who = self.login.name(self.nick) if self.login is not None else self.nick
            hint = ("wrong account name or password" if self.mechanism == "plain" else
                    "the services do not know this client certificate (add its fingerprint to "
                    "the account: /msg NickServ CERT ADD)")
            return self._fail(f"the server refused SASL {self.mechanism.upper()} for account {who!r}: "
                              f"{hint} ({command} {text})")
        if command == "905":  # ERR_SASLTOOLONG
            return self._fail(f"the server refused our SASL response as too long ({command} {text})")
        if command == "902":  # ERR_NICKLOCKED
            return self._fail(f"the server will not log us in while on this nick ({command} {text})")
        if command == "906":  # ERR_SASLABORTED
            return self._sasl_over("unavailable")
        if command == "907":  # ERR_SASLALREADY
            return self._sasl_over("ok")
        if command == "908":  # RPL_SASLMECHS <nick> <mechanisms> :are available
            if len(params) >= 2:
                self.offered = params[1].lower().split(",")
        return []

    def _cap(self, params: list[str]) -> list[str]:
        if len(params) < 2 or self.finished:
            return []
        sub = params[1].upper()
        if sub == "LS":
            if len(params) >= 4 and params[2] == "*":  # more lines follow (CAP 302)
                self._ls.append(params[3])
                return []
            self._ls.append(params[-1] if len(params) >= 3 else "")
            caps = {}
            for token in " ".join(self._ls).split():
                name, _, value = token.partition("=")
                caps[name.lower()] = value
            self._ls = []
            out = []
            for cap in self.wanted:
                if cap in caps and cap != "sasl":
                    self._asked.add(cap)
                    out.append(f"CAP REQ :{cap}")
            if self.mechanism:
                if caps.get("sasl"):
                    self.offered = [m.lower() for m in caps["sasl"].split(",") if m]
                if "sasl" in caps and (not self.offered or self.mechanism in self.offered):
                    self._asked.add("sasl")
                    out.append("CAP REQ :sasl")
                else:
                    self.sasl = "unavailable"
            return out + self._maybe_end()
        if sub in ("ACK", "NAK"):
            out = []
            for token in params[-1].split():
                cap = token.lstrip("-~=").lower()
                if cap not in self._asked:
                    continue
                self._asked.discard(cap)
                if sub == "NAK":
                    if cap == "sasl":
                        self.sasl = "unavailable"
                    continue
                self.enabled.add(cap)
                if cap == "sasl":
                    self._authenticating = True
                    out.append(f"AUTHENTICATE {self.mechanism.upper()}")
            return out + self._maybe_end()
        return []

    def _authenticate(self, params: list[str]) -> list[str]:
        if not self._authenticating or not params or params[0] != "+" or self.login is None:
            return []  # a challenge we did not ask for (PLAIN and EXTERNAL have none)
        if self.mechanism == "external":
            return sasl_chunks(b"")  # the account is the one the certificate belongs to
        name = self.login.name(self.nick).encode("utf-8")
        return sasl_chunks(name + b"\0" + name + b"\0" + self.login.password.encode("utf-8"))


# What services answer to IDENTIFY (Anope: "Password accepted - you are now recognized.",
# "Password incorrect."; Atheme: "You are now identified for poki.", "Invalid password
# for poki."), without their bold and colour codes.
_FORMATTING = re.compile(r"[\x02\x03\x0f\x16\x1d\x1f](?:(?<=\x03)\d{1,2}(?:,\d{1,2})?)?")
_ACCEPTED = re.compile(r"password accepted|you are now (identified|recognized|logged in)|"
                       r"you are already (identified|logged in)", re.IGNORECASE)
_REFUSED = re.compile(r"password (is )?(incorrect|invalid|wrong)|(invalid|incorrect|wrong) password|"
                      r"is not registered|isn't registered|not a registered|no such account|"
                      r"account .* (is )?suspended|too many (failed|invalid)", re.IGNORECASE)


def nickserv_verdict(text: str) -> str | None:
    """"accepted", "refused" or None for a services notice read after IDENTIFY.

    >>> nickserv_verdict("Password accepted - you are now recognized.")
    'accepted'
    >>> nickserv_verdict("Invalid password for \\x02poki\\x02.")
    'refused'
    >>> nickserv_verdict("This nickname is registered. Please choose a different nickname.") is None
    True
    """
    plain = _FORMATTING.sub("", text)
    if _REFUSED.search(plain):
        return "refused"
    if _ACCEPTED.search(plain):
        return "accepted"
    return None
