"""Real IRC server software on loopback, from Debian's packages, for the tests (and the
on-request pace measurement, tests/irc_pace.py): ngircd (plain and TLS), and InspIRCd 3
linked to Anope 2.0 services (plain and TLS, registered accounts, SASL PLAIN and EXTERNAL),
the way networks run them; and the pytest fixtures that start them.

Test infrastructure, not shipped: the wheel's packages never start a server of this kind
(`poki demo` runs miniircd, connectors.irc.server).

Each server is started from configuration files written into a folder of its own (a
temporary one unless given), with a self-signed certificate made there at start (openssl),
listens on 127.0.0.1 only, on ports free at the time, and keeps the software's default
flood limits: no exemption, no raised command rate. What the configurations do change:
no DNS or ident look-ups (nothing to look up on loopback) and no cap on connections from
one address (every bot of a table comes from 127.0.0.1). :meth:`stop` ends every process
it started and removes the folder if it made it.

The system services the packages install (``/etc/init.d/ngircd`` ...) are neither used
nor needed: these are separate processes with their own files.

Where a server is not installed a developer's run skips the tests that need it; with
POKI_REQUIRE_IRC_SERVERS=1 (set by .ci/run, which installs them) a missing one fails them
instead, so a green CI always means they ran.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from connectors.irc.identity import parse_line
from connectors.irc.server import HOST, free_port

from helpers.tiers import full_tier, waits_on_servers

START_SECONDS = 60.0  # a server that does not listen (or link) within this is taken as failed
LINK_PASSWORD = "poki-link"  # between InspIRCd and Anope, on loopback only
PROGRAMS = {"ngircd": ("ngircd", "openssl"), "inspircd": ("inspircd", "anope", "openssl")}


class DaemonError(RuntimeError):
    """A server could not be started (the message carries the end of its log)."""


def program(name: str) -> str | None:
    """The path of an installed program (servers live in /usr/sbin, which a user's PATH
    may lack)."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


def missing_programs(*servers: str) -> list[str]:
    """The programs ``servers`` ("ngircd", "inspircd") need that are not installed."""
    wanted = [p for s in (servers or tuple(PROGRAMS)) for p in PROGRAMS[s]]
    return sorted({p for p in wanted if program(p) is None})


def _path(name: str) -> str:
    path = program(name)
    if path is None:
        raise DaemonError(f"{name} is not installed (Debian: apt-get install {name})")
    return path


@dataclass(frozen=True)
class Certificate:
    """A self-signed certificate: ``cert`` and ``key`` PEM files (``pem`` holds both, as a
    client certificate file for ``--tls-cert``)."""

    cert: Path
    key: Path
    pem: Path

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the certificate (DER), in hex: what services store for CertFP."""
        der = ssl.PEM_cert_to_DER_cert(self.cert.read_text())
        return hashlib.sha256(der).hexdigest()


def make_certificate(folder: Path, name: str, common_name: str = HOST) -> Certificate:
    """A new self-signed certificate (P-256 key, valid a week) for ``common_name``, also
    good for 127.0.0.1 and localhost; files ``<name>.crt``, ``<name>.key``, ``<name>.pem``."""
    folder.mkdir(parents=True, exist_ok=True)
    cert, key, pem = folder / f"{name}.crt", folder / f"{name}.key", folder / f"{name}.pem"
    result = subprocess.run(
        [_path("openssl"), "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-days", "7", "-subj", f"/CN={common_name}", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", str(key), "-out", str(cert)],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise DaemonError(f"openssl could not make a certificate: {result.stderr.strip()[-500:]}")
    pem.write_text(cert.read_text() + key.read_text())
    os.chmod(key, 0o600)
    os.chmod(pem, 0o600)
    return Certificate(cert, key, pem)


@dataclass(frozen=True)
class Whois:
    nick: str
    online: bool
    account: str | None  # logged in to (330)
    secure: bool  # connected over TLS (671)


class RawClient:
    """A bare IRC connection (plain or TLS) for setting a network up and looking at it:
    register an account, WHOIS someone. Every read has a time limit."""

    def __init__(self, port: int, nick: str, *, ca_file: str | Path | None = None,
                 cert_file: str | Path | None = None, timeout: float = START_SECONDS) -> None:
        self.nick = nick
        self.timeout = timeout
        sock = socket.create_connection((HOST, port), timeout=timeout)
        if ca_file is not None:
            context = ssl.create_default_context(cafile=str(ca_file))
            if cert_file is not None:
                context.load_cert_chain(str(cert_file))
            sock = context.wrap_socket(sock, server_hostname=HOST)
        self.sock = sock
        self._buffer = b""
        self.send(f"NICK {nick}")
        self.send(f"USER {nick} 0 * :Poki network set-up")
        self.expect(lambda p, c, a: c == "001", "the welcome (001)")

    def send(self, line: str) -> None:
        self.sock.sendall(f"{line}\r\n".encode())

    def expect(self, match: Callable[[str, str, list[str]], bool], what: str,
               timeout: float | None = None) -> tuple[str, str, list[str]]:
        """Read until a line (prefix, COMMAND, params) matches; DaemonError naming ``what``
        after ``timeout`` seconds or when the server closes."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            while b"\n" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\n", 1)
                prefix, command, params = parse_line(raw.decode("utf-8", "replace").rstrip("\r"))
                if command == "PING":
                    self.send(f"PONG :{params[-1] if params else ''}")
                    continue
                if match(prefix, command, params):
                    return prefix, command, params
                if command == "ERROR":
                    raise DaemonError(f"the server closed the connection waiting for {what}: {params}")
            left = deadline - time.monotonic()
            if left <= 0:
                raise DaemonError(f"no {what} within {self.timeout if timeout is None else timeout:g} s")
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except (TimeoutError, ssl.SSLError, OSError) as exc:
                raise DaemonError(f"no {what}: {exc}") from None
            if not data:
                raise DaemonError(f"the server closed the connection waiting for {what}")
            self._buffer += data

    def services_notice(self, what: str, *words: str, timeout: float | None = None) -> str:
        """The next notice from NickServ holding one of ``words`` (case-insensitive)."""
        lowered = [w.lower() for w in words]
        _, _, params = self.expect(
            lambda p, c, a: c == "NOTICE" and p.split("!")[0].lower() == "nickserv"
            and any(w in (a[-1] if a else "").lower() for w in lowered), what, timeout)
        return params[-1]

    def whois(self, nick: str) -> Whois:
        """What WHOIS says of ``nick``: on the network, the account it is logged in to
        (330), on a TLS connection (671)."""
        self.send(f"WHOIS {nick}")
        online, account, secure = False, None, False
        while True:
            _, command, params = self.expect(lambda p, c, a: c in ("311", "330", "671", "318", "401"),
                                             f"WHOIS {nick}")
            if command == "311":
                online = True
            elif command == "330" and len(params) >= 3:
                account = params[2]
            elif command == "671":
                secure = True
            elif command in ("318", "401"):
                return Whois(nick, online, account, secure)

    def close(self) -> None:
        try:
            self.send("QUIT :done")
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass


def line_arrivals(port: int, lines: int = 25, timeout: float = START_SECONDS * 5) -> list[float]:
    """Seconds after sending until each of ``lines`` channel messages, sent at once by one
    client, reached another client: the server's flood limits as a client meets them."""
    sender, listener = RawClient(port, "floodsend"), RawClient(port, "floodread")
    try:
        for client in (listener, sender):
            client.send("JOIN #flood")
            client.expect(lambda p, c, a: c == "366", "the channel joined")  # end of NAMES
        start = time.monotonic()
        sender.send("\r\n".join(f"PRIVMSG #flood :line {i}" for i in range(lines)))
        arrivals = []
        for _ in range(lines):
            listener.expect(lambda p, c, a: c == "PRIVMSG", "the next line", timeout)
            arrivals.append(time.monotonic() - start)
        return arrivals
    finally:
        sender.close()
        listener.close()


# Watches the process that started a server (argv 1) and the server (argv 2): when the
# starter is gone, however it ended (even killed outright, so no stop() and no atexit),
# the server is ended; when the server is gone, so is the watcher. A process of its own
# because a server that changes user (ngircd started as root) loses any signal asked of
# the kernel for its parent's death.
_WATCH = """
import os, signal, sys, time
starter, server = int(sys.argv[1]), int(sys.argv[2])
def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True
while alive(server):
    if not alive(starter) or os.getppid() == 1:
        os.kill(server, signal.SIGTERM)
        for _ in range(100):
            if not alive(server):
                break
            time.sleep(0.1)
        else:
            os.kill(server, signal.SIGKILL)
        break
    time.sleep(0.5)
"""


class _Daemon:
    """What both servers share: a folder, processes, waiting for their ports, stopping."""

    name = "server"

    def __init__(self, folder: str | Path | None) -> None:
        self._made_folder = folder is None
        self.folder = Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix=f"poki-{self.name}-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.host = HOST
        self.processes: list[tuple[str, subprocess.Popen]] = []
        self._watchers: list[subprocess.Popen] = []  # one per server: ends it if we die first
        self.certificate: Certificate | None = None
        self.port = 0  # plain text
        self.tls_port = 0

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def tls_address(self) -> str:
        return f"{self.host}:{self.tls_port}"

    @property
    def ca_file(self) -> Path:
        """What a client trusts to verify this server: its self-signed certificate."""
        assert self.certificate is not None, "start() first"
        return self.certificate.cert

    def whois(self, *nicks: str) -> dict[str, Whois]:
        """What WHOIS says of each of ``nicks`` (asked from a connection of its own)."""
        client = RawClient(self.port, "pokiwhois")
        try:
            return {nick: client.whois(nick) for nick in nicks}
        finally:
            client.close()

    def _spawn(self, label: str, args: list[str], cwd: Path | None = None) -> subprocess.Popen:
        out = open(self.folder / f"{label}.out", "wb")  # the process owns it
        try:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    cwd=cwd or self.folder, start_new_session=True)
        finally:
            out.close()
        self.processes.append((label, proc))
        self._watchers.append(subprocess.Popen(
            [sys.executable, "-c", _WATCH, str(os.getpid()), str(proc.pid)], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        atexit.register(self.stop)
        return proc

    def _output(self, label: str, lines: int = 20) -> str:
        texts = []
        for path in (self.folder / f"{label}.out", self.folder / f"{label}.log"):
            if path.exists():
                texts.extend(path.read_text(errors="replace").splitlines()[-lines:])
        return "\n".join(texts)

    def _wait_port(self, label: str, proc: subprocess.Popen, port: int) -> None:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise DaemonError(f"{label} exited at start (code {proc.returncode}):\n{self._output(label)}")
            try:
                with socket.create_connection((self.host, port), timeout=1.0):
                    return
            except OSError:
                time.sleep(0.05)
        raise DaemonError(f"{label} did not listen on {self.host}:{port} within {START_SECONDS:g} s:\n"
                          f"{self._output(label)}")

    @property
    def running(self) -> bool:
        return bool(self.processes) and all(p.poll() is None for _, p in self.processes)

    def stop(self, timeout: float = 10.0) -> None:
        """End every process started (terminate, then kill), last first; remove the
        folder if this object made it."""
        processes, self.processes = self.processes, []
        for _, proc in reversed(processes):
            if proc.poll() is None:
                proc.terminate()
        for _, proc in reversed(processes):
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout)
        watchers, self._watchers = self._watchers, []
        for watcher in watchers:  # each ends within half a second of its server
            try:
                watcher.wait(timeout)
            except subprocess.TimeoutExpired:
                watcher.kill()
                watcher.wait(timeout)
        if self._made_folder and self.folder.exists():
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):  # returns self
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self):  # each server returns itself
        raise NotImplementedError


def _dh_params(folder: Path) -> Path:
    """Diffie-Hellman parameters of RFC 7919's ffdhe2048 group (instant, unlike a new group)."""
    path = folder / "dhparams.pem"
    result = subprocess.run([_path("openssl"), "genpkey", "-genparam", "-algorithm", "DH", "-pkeyopt", "group:ffdhe2048",
                             "-out", str(path)], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise DaemonError(f"openssl could not write DH parameters: {result.stderr.strip()[-500:]}")
    return path


class Ngircd(_Daemon):
    """ngircd on 127.0.0.1: ``port`` plain, ``tls_port`` TLS (self-signed ``ca_file``);
    ``password`` makes it ask every client for a server password (PASS). Its default
    flood limits apply (about a line every 2 s past a short burst)."""

    name = "ngircd"

    def __init__(self, folder: str | Path | None = None, *, password: str = "") -> None:
        super().__init__(folder)
        self.password = password

    def start(self) -> Ngircd:
        if self.running:
            return self
        self.certificate = make_certificate(self.folder, "server")
        dh = _dh_params(self.folder)
        (self.folder / "conf.d").mkdir(exist_ok=True)  # instead of /etc/ngircd/ngircd.conf.d
        self.port, self.tls_port = free_port(), free_port()
        password = f"\tPassword = {self.password}\n" if self.password else ""
        config = self.folder / "ngircd.conf"
        config.write_text(
            "[Global]\n"
            "\tName = irc.poki.test\n"
            "\tInfo = Poki test network (ngircd)\n"
            f"\tListen = {self.host}\n"
            f"\tPorts = {self.port}\n"
            "\tMotdPhrase = Poki test network\n"
            "\tPidFile =\n"
            f"{password}"
            "[Limits]\n"
            "\tMaxConnectionsIP = 0\n"  # every bot of a table comes from 127.0.0.1
            "[Options]\n"
            "\tDNS = no\n"
            "\tIdent = no\n"
            "\tPAM = no\n"
            f"\tIncludeDir = {self.folder / 'conf.d'}\n"
            "[SSL]\n"
            f"\tCertFile = {self.certificate.cert}\n"
            f"\tKeyFile = {self.certificate.key}\n"
            f"\tDHFile = {dh}\n"
            f"\tPorts = {self.tls_port}\n")
        proc = self._spawn("ngircd", [_path("ngircd"), "--nodaemon", "--config", str(config)])
        try:
            self._wait_port("ngircd", proc, self.port)
            self._wait_port("ngircd", proc, self.tls_port)
        except BaseException:
            self.stop()
            raise
        return self


class Inspircd(_Daemon):
    """InspIRCd 3 on 127.0.0.1 (``port`` plain, ``tls_port`` TLS with a self-signed
    ``ca_file``), linked to Anope 2.0 services (NickServ: accounts, SASL PLAIN and
    EXTERNAL, IDENTIFY, RECOVER, CERT) unless ``services`` is off. Its default flood
    limits apply (a line a second past a penalty of 10, then lines are held: fakelag)."""

    name = "inspircd"

    def __init__(self, folder: str | Path | None = None, *, services: bool = True, password: str = "") -> None:
        super().__init__(folder)
        self.services = services
        self.password = password
        self.link_port = 0

    def start(self) -> Inspircd:
        if self.running:
            return self
        self.certificate = make_certificate(self.folder, "server")
        self.port, self.tls_port, self.link_port = free_port(), free_port(), free_port()
        self._write_inspircd()
        args = [_path("inspircd"), "--nofork", "--nopid", "--config", str(self.folder / "inspircd.conf")]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--runasroot")  # it refuses root otherwise; it listens on loopback only
        try:
            proc = self._spawn("inspircd", args)
            self._wait_port("inspircd", proc, self.port)
            self._wait_port("inspircd", proc, self.tls_port)
            if self.services:
                self._start_anope()
        except BaseException:
            self.stop()
            raise
        return self

    def _write_inspircd(self) -> None:
        assert self.certificate is not None
        folder = self.folder
        (folder / "motd.txt").write_text("Poki test network\n")
        password = f' password="{self.password}"' if self.password else ""
        services = (
            '<module name="spanningtree">\n'
            '<module name="services_account">\n'
            '<module name="hidechans">\n'  # Anope expects these two
            '<module name="svshold">\n'
            f'<bind address="{self.host}" port="{self.link_port}" type="servers">\n'
            f'<link name="services.poki.test" ipaddr="{self.host}" port="{self.link_port}" '
            f'sendpass="{LINK_PASSWORD}" recvpass="{LINK_PASSWORD}">\n'
            '<uline server="services.poki.test" silent="yes">\n'
            '<sasl target="services.poki.test" requiressl="no">\n'
            '<module name="sasl">\n') if self.services else ""
        (folder / "inspircd.conf").write_text(
            '<server name="irc.poki.test" description="Poki test network (InspIRCd)" id="0PK" network="PokiTest">\n'
            '<admin name="Poki" nick="poki" email="poki@localhost">\n'
            '<options casemapping="ascii">\n'
            f'<files motd="{folder / "motd.txt"}">\n'
            f'<pid file="{folder / "inspircd.pid"}">\n'
            f'<log method="file" type="* -USERINPUT -USEROUTPUT" level="default" target="{folder / "inspircd.log"}">\n'
            '<module name="ssl_gnutls">\n'
            f'<sslprofile name="Clients" provider="gnutls" certfile="{self.certificate.cert}" '
            f'keyfile="{self.certificate.key}" hash="sha256" requestclientcert="yes">\n'
            f'<bind address="{self.host}" port="{self.port}" type="clients">\n'
            f'<bind address="{self.host}" port="{self.tls_port}" type="clients" sslprofile="Clients">\n'
            # The default class: its flood limits (threshold, commandrate, fakelag) are the
            # software's own; only look-ups are off and clones from 127.0.0.1 allowed.
            f'<connect name="main" allow="*" localmax="1000" globalmax="1000" resolvehostnames="no"{password}>\n'
            '<module name="cap">\n'
            '<module name="sslinfo">\n'
            '<module name="ircv3">\n'
            '<module name="ircv3_accounttag">\n'
            + services)

    def _start_anope(self) -> None:
        root = self.folder / "anope"
        for sub in ("conf", "data", "logs"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        (root / "conf" / "motd").write_text("Poki test services\n")
        (root / "conf" / "services.conf").write_text(_ANOPE_CONFIG.format(
            link_port=self.link_port, link_password=LINK_PASSWORD, pid=root / "anope.pid", motd=root / "conf" / "motd"))
        # Anope 2.0 takes the file name relative to its configuration folder.
        proc = self._spawn("anope", [_path("anope"), "--nofork", f"--confdir={root / 'conf'}", f"--dbdir={root / 'data'}",
                                     f"--logdir={root / 'logs'}", "--modulesdir=/usr/lib/anope",
                                     "--config=services.conf"])
        # Linked when NickServ is on the network.
        deadline = time.monotonic() + START_SECONDS
        while True:
            if proc.poll() is not None:
                raise DaemonError(f"anope exited at start (code {proc.returncode}):\n{self._output('anope')}")
            probe = RawClient(self.port, "pokiprobe")
            try:
                probe.send("ISON NickServ")
                _, _, params = probe.expect(lambda p, c, a: c == "303", "ISON's answer")
                if "nickserv" in (params[-1] if params else "").lower():
                    return
            finally:
                probe.close()
            if time.monotonic() > deadline:
                raise DaemonError(f"Anope did not link to InspIRCd within {START_SECONDS:g} s:\n"
                                  f"{self._output('anope')}\n{self._output('inspircd')}")
            time.sleep(0.2)

    def register(self, nick: str, password: str, *, certificate: Certificate | None = None) -> None:
        """Register the account ``nick`` with NickServ (as a user would: connected as
        ``nick``, over TLS) and, given a client certificate, add its fingerprint to the
        account for SASL EXTERNAL."""
        client = RawClient(self.tls_port, nick, ca_file=self.ca_file,
                           cert_file=certificate.pem if certificate is not None else None)
        try:
            client.send(f"PRIVMSG NickServ :REGISTER {password}")
            client.expect(lambda p, c, a: c == "900", f"NickServ to register {nick}")
            if certificate is not None:
                client.send(f"PRIVMSG NickServ :CERT ADD {certificate.fingerprint}")
                client.services_notice(f"NickServ to add the certificate of {nick}", "added", "already")
        finally:
            client.close()


# Anope 2.0 services for the test network: NickServ with registration open (no e-mail,
# no waiting), passwords hashed with SHA-256, SASL (PLAIN, and EXTERNAL by certificate
# fingerprint), nick protection as networks set it (an unidentified user of a registered
# nick is renamed after a minute), RECOVER to regain a nick.
_ANOPE_CONFIG = """\
serverinfo {{ name = "services.poki.test"; description = "Poki test services"; id = "0PS"; pid = "{pid}"; motd = "{motd}"; }}
uplink {{ host = "127.0.0.1"; ipv6 = no; ssl = no; port = {link_port}; password = "{link_password}"; }}
module {{ name = "inspircd3"; use_server_side_mlock = yes; use_server_side_topiclock = yes; }}
networkinfo {{ networkname = "PokiTest"; nicklen = 30; userlen = 10; hostlen = 64; chanlen = 64; modelistsize = 100; vhost_chars = "._-"; allow_undotted_vhosts = false; disallow_start_or_end = ".-"; }}
options {{ seed = 1995; casemap = "ascii"; readtimeout = 5s; warningtimeout = 4h; timeoutcheck = 3s; badpasslimit = 50; badpasstimeout = 1h; }}
mail {{ usemail = no; }}
module {{ name = "enc_sha256"; }}
module {{ name = "db_flatfile"; database = "anope.db"; }}
module {{ name = "m_sasl"; }}
service {{ nick = "NickServ"; user = "services"; host = "services.poki.test"; gecos = "Nickname Registration Service"; }}
module {{ name = "nickserv"; client = "NickServ"; forceemail = no; defaults = "killprotect memo_signon memo_receive"; regdelay = 0; kill = 60s; killquick = 20s; releasetimeout = 10s; guestnickprefix = "Guest"; minpasslen = 5; maxpasslen = 200; passlen = 200; }}
command {{ service = "NickServ"; name = "HELP"; command = "generic/help"; }}
module {{ name = "ns_register"; registration = "none"; }}
command {{ service = "NickServ"; name = "REGISTER"; command = "nickserv/register"; }}
module {{ name = "ns_identify"; maxlogins = 10; }}
command {{ service = "NickServ"; name = "IDENTIFY"; command = "nickserv/identify"; }}
module {{ name = "ns_recover"; restoreonrecover = yes; }}
command {{ service = "NickServ"; name = "RECOVER"; command = "nickserv/recover"; }}
module {{ name = "ns_cert"; max = 5; }}
command {{ service = "NickServ"; name = "CERT"; command = "nickserv/cert"; }}
module {{ name = "ns_info"; }}
command {{ service = "NickServ"; name = "INFO"; command = "nickserv/info"; }}
"""


# pytest: skip or fail where a server is missing, and the fixtures.
REQUIRED = os.environ.get("POKI_REQUIRE_IRC_SERVERS") == "1"


def need(*servers: str) -> None:
    """Skip the test (fail it under CI) when the programs ``servers`` need are missing."""
    missing = missing_programs(*servers)
    if not missing:
        return
    message = f"not installed: {', '.join(missing)} (.ci/run installs them with apt-get)"
    if REQUIRED:
        pytest.fail(f"POKI_REQUIRE_IRC_SERVERS is set but {message}")
    pytest.skip(message)


@pytest.fixture(scope="module")
@full_tier
@waits_on_servers
def inspircd() -> Iterator[Inspircd]:
    """InspIRCd with Anope services on loopback, shared by a module's tests (each registers
    accounts of its own)."""
    need("inspircd")
    with Inspircd() as net:
        yield net


@pytest.fixture(scope="module")
@full_tier
@waits_on_servers
def ngircd() -> Iterator[Ngircd]:
    need("ngircd")
    with Ngircd() as net:
        yield net


@pytest.fixture(params=["ngircd", "inspircd"])
@full_tier
@waits_on_servers
def real_server(request):
    """Each real server software in turn (the module's ngircd, then its InspIRCd)."""
    return request.param, request.getfixturevalue(request.param)


def secret_file(folder: Path, name: str, secret: str) -> Path:
    """A password file as a user keeps one: the secret on its first line, readable by its
    owner alone."""
    path = folder / name
    path.write_text(secret + "\n")
    path.chmod(0o600)
    return path
