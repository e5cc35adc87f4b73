"""The opponent report served on this machine, live: ``poki report --serve`` and the IRC
bots' ``--serve-report PORT``.

A small HTTP server (the standard library's ThreadingHTTPServer) reads the database
read-only (db.reads.open_readonly, a connection per request, so a writer keeps adding
hands meanwhile) and answers four kinds of address, and nothing else:

``/``                the front page: the opponents' table (templates/report.html.j2)
``/player/ID``       one opponent: statistics, charts, his hands (templates/player.html.j2)
``/hand/SEQ``        the hand replayer (templates/hand.html.j2, agent.report.hands)
``/version.json``    the report's version: the count of hands and the last one

The pages ask for ``/version.json`` every few seconds and, when it changed, fetch
themselves again and put the new contents in place, keeping the reader's scroll
position, sort and filter (templates/_live_script.html.j2). The statistics are computed
once per version and shared by every request of it (LiveReport says how often at most).

What a request may be: GET only (any other method is answered 501 by the standard
handler), a path of at most MAX_PATH characters matching one of the addresses above (no
file is ever served from disk, so there is nothing to traverse to), a Host header naming
the loopback address the server listens on (a page of another site cannot reach it
through a name that resolves here: DNS rebinding), and a client that sends its request
within REQUEST_SECONDS; at most MAX_CLIENTS connections at once. The server listens on the loopback interface only, unless the
caller allows any address (``allow_any``: ``--bind-any``).
"""
from __future__ import annotations

import ipaddress
import json
import logging
import re
import socket
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from db.reads import HandsVersion, ReadError, hands_version, open_readonly

from .charts import player_chart
from .page import Links, ReportOptions, hand_page, render_html, render_player
from .stats import PlayerStats, ReportData, compute

log = logging.getLogger("poki.report.serve")

MAX_PATH = 256  # characters of a request's path, query included
REQUEST_SECONDS = 10.0  # a client that has not sent its request by then is dropped
MAX_CLIENTS = 32  # connections served at once; one more is closed unanswered
POLL_SECONDS = 2.0  # how often a page asks whether the database changed
LOAD_FACTOR = 4.0  # rest after a computation of the report, in multiples of its time
LOOPBACK_NAMES = ("localhost",)
_PLAYER = re.compile(r"/player/([0-9]{1,12})")
_HAND = re.compile(r"/hand/([0-9]{1,15})")
_SERVED = Links(served=True)
# The pages' own script and style are inline; they fetch only from this server.
_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


class ServeError(Exception):
    """The server cannot listen as asked; the message says why."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine's loopback interface (127.0.0.0/8, ::1, localhost)."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Snapshot:
    """The report of one version of the database (its charts are drawn when a page asks
    for them: LiveReport.chart)."""

    version: HandsVersion
    data: ReportData

    @property
    def tag(self) -> str:
        return f"{self.version.hands}:{self.version.last}"


class LiveReport:
    """The report of a database, computed again when a hand has been stored since, but
    not sooner than LOAD_FACTOR times the last computation's time after it ended: on a
    big database that takes seconds, the report then takes at most a fifth of a core
    however fast hands arrive (it may share the process of a bot that is playing)."""

    def __init__(self, db_path: str, options: ReportOptions) -> None:
        self.db_path = str(db_path)
        self.options = options
        self._lock = threading.Lock()  # one computation at a time; the others wait for it
        self._snapshot: Snapshot | None = None
        self._not_before = 0.0  # time.monotonic() before which the snapshot is not computed again
        self._charts_lock = threading.Lock()  # matplotlib draws one figure at a time
        self._charts: dict[int, tuple[tuple[int, int, bool], str]] = {}  # player -> (what it showed, SVG)

    def snapshot(self) -> Snapshot:
        """The report of the database as it is now, or as it was at most the rest period
        ago (ReadError if it cannot be read)."""
        with self._lock:
            if self._snapshot is not None and time.monotonic() < self._not_before:
                return self._snapshot
            started = time.monotonic()
            conn = open_readonly(self.db_path)
            try:
                version = hands_version(conn, self.db_path)
                if self._snapshot is not None and self._snapshot.version == version:
                    return self._snapshot
                o = self.options
                # Every opponent's curves: his page draws his chart when it is asked for.
                data = compute(conn, self.db_path, network=o.network, since=o.since, players=o.players, hero=o.hero,
                               recorded_heroes=o.recorded_heroes, thresholds=o.thresholds, timelines_for=None,
                               session_gap=o.session_gap)
            finally:
                conn.close()
            self._snapshot = Snapshot(version, data)
            ended = time.monotonic()
            self._not_before = ended + LOAD_FACTOR * (ended - started)
            return self._snapshot

    def chart(self, snapshot: Snapshot, player: PlayerStats) -> str | None:
        """The player's chart (None for a player not charted), drawn again only when
        what it shows changed: his hands, those shared with us, whether we are known."""
        if player.pid not in snapshot.data.charted:
            return None
        have_us = bool(snapshot.data.heroes)
        key = (player.hands, player.vs_us.n if player.vs_us else 0, have_us)
        with self._charts_lock:
            drawn = self._charts.get(player.pid)
            if drawn is None or drawn[0] != key:
                drawn = (key, player_chart(player, have_us))
                self._charts[player.pid] = drawn
            return drawn[1]

    def hand(self, seq: int, snapshot: Snapshot) -> str | None:
        conn = open_readonly(self.db_path)
        try:
            return hand_page(conn, self.db_path, seq, snapshot.data, _SERVED)
        finally:
            conn.close()


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    timeout = REQUEST_SECONDS  # on the socket: a silent client is dropped
    server_version = "poki-report"
    sys_version = ""

    def do_GET(self) -> None:  # the name http.server dispatches to
        try:
            self._get()
        except ReadError as exc:
            self._send(HTTPStatus.SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", f"{exc}\n".encode())
        except (BrokenPipeError, ConnectionResetError):
            pass  # the reader went away; nothing to answer
        except Exception:  # one failed request is logged and answered, the server goes on
            log.exception("serving %s", self.path[:MAX_PATH])
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8",
                       b"the report could not be made; the server's log says why\n")

    def _get(self) -> None:
        if len(self.path) > MAX_PATH:
            self._send(HTTPStatus.REQUEST_URI_TOO_LONG, "text/plain; charset=utf-8", b"path too long\n")
            return
        if not self.server.host_allowed(self.headers.get("Host", "")):
            self._send(HTTPStatus.MISDIRECTED_REQUEST, "text/plain; charset=utf-8",
                       b"this server answers requests for its loopback address only\n")
            return
        path = self.path.split("?", 1)[0]
        live = self.server.live
        if path == "/version.json":  # the version the pages would show now
            snap = live.snapshot()
            body = json.dumps({"hands": snap.version.hands, "last": snap.version.last, "version": snap.tag})
            self._send(HTTPStatus.OK, "application/json", body.encode())
            return
        if path == "/":
            snap = live.snapshot()
            html = render_html(snap.data, live.options, {}, time.time(), links=_SERVED, version=snap.tag,
                               poll_seconds=self.server.poll_seconds)
            self._page(html)
            return
        m = _PLAYER.fullmatch(path)
        if m:
            snap = live.snapshot()
            pid = int(m.group(1))
            player = next((p for p in snap.data.players if p.pid == pid), None)
            if player is None:
                self._not_found(f"no opponent {pid} in this report")
                return
            self._page(render_player(snap.data, live.options, player, live.chart(snap, player), version=snap.tag,
                                     poll_seconds=self.server.poll_seconds))
            return
        m = _HAND.fullmatch(path)
        if m:
            snap = live.snapshot()
            page = live.hand(int(m.group(1)), snap)
            if page is None:
                self._not_found(f"no hand {m.group(1)} in the database")
                return
            self._page(page)
            return
        self._not_found("no such page: the report has /, /player/ID, /hand/SEQ and /version.json")

    def _page(self, html: str) -> None:
        self._send(HTTPStatus.OK, "text/html; charset=utf-8", html.encode("utf-8"))

    def _not_found(self, text: str) -> None:
        self._send(HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", f"{text}\n".encode())

    def _send(self, status: HTTPStatus, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", _CSP)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # the standard signature
        log.debug("%s %s", self.address_string(), format % args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a request still running never holds the process at exit

    def __init__(self, address: tuple[str, int], live: LiveReport, poll_seconds: float, any_host: bool) -> None:
        self._slots = threading.BoundedSemaphore(MAX_CLIENTS)
        self.live = live
        self.poll_seconds = poll_seconds
        self.any_host = any_host
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):  # as many connections as it serves: closed unanswered
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def host_allowed(self, header: str) -> bool:
        """Whether a request's Host header names this server: any, when it listens on
        any address; else a loopback name or address (with this port, or none)."""
        if self.any_host:
            return True
        host, _, port = header.rpartition(":") if not header.endswith("]") else (header, "", "")
        if not host:  # no port given
            host, port = header, ""
        if port and port != str(self.server_address[1]):
            return False
        return is_loopback(host)


class ReportServer:
    """The live report of ``db_path`` on ``host``:``port`` (0: a free port), in a thread of
    its own: ``start`` listens and returns, ``stop`` ends it. A host that is not the
    loopback interface is refused (ServeError) unless ``allow_any``."""

    def __init__(self, db_path: str, options: ReportOptions, *, host: str = "127.0.0.1", port: int = 0,
                 allow_any: bool = False, poll_seconds: float = POLL_SECONDS) -> None:
        if not is_loopback(host) and not allow_any:
            raise ServeError(f"will not listen on {host}: the report is served on the loopback interface only "
                             f"(127.0.0.1) unless --bind-any allows another address (anyone who can reach it "
                             f"reads the database's players and hands)")
        try:
            self._server = _Server((host, port), LiveReport(db_path, options), poll_seconds, any_host=allow_any)
        except OSError as exc:
            raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else host
        shown = f"[{name}]" if ":" in name else name
        return f"http://{shown}:{port}/"

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> ReportServer:
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.25},
                                        name="report-server", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop answering and close the socket; waits at most ``timeout`` s for the loop."""
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.warning("the report server's loop did not end within %.0f s", timeout)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> ReportServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
