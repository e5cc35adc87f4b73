"""A real IRC server on loopback for the demo, the benchmark and the tests: miniircd
(a small, complete IRC server on PyPI) run as a child process on 127.0.0.1.

It listens on 127.0.0.1 only, on a free port unless one is given, and
:meth:`LoopbackServer.stop` ends the process it started (terminate, then kill). Run as
root, miniircd must drop privileges (``--setuid nobody``), which it does after binding.
"""
from __future__ import annotations

import atexit
import os
import socket
import subprocess
import sys
import time

__all__ = ["LoopbackServer", "ServerError", "free_port"]

HOST = "127.0.0.1"


class ServerError(RuntimeError):
    """The IRC server could not be started (the message carries its output)."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


# miniircd as its console script runs it, with one change: the sockets it accepts send at
# once (TCP_NODELAY). Every dealer line waits for a player's answer, and with Nagle's
# algorithm each small reply would wait for the previous one's delayed ACK (40 ms on
# Linux): a loopback table would crawl at a few hands a second for no reason of its own.
# It also watches its parent and ends when the parent is gone, so a killed owner leaves no
# server behind.
_LAUNCH = """
import os, socket, sys, threading, time
import miniircd
# End with the process that started us, however it ended (even killed outright).
_parent = os.getppid()
def _watch():
    while True:
        time.sleep(0.5)
        if os.getppid() != _parent:
            os._exit(0)
threading.Thread(target=_watch, daemon=True).start()
_accept = socket.socket.accept
def accept(self):
    conn, addr = _accept(self)
    try:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass
    return conn, addr
socket.socket.accept = accept
sys.argv[0] = "miniircd"
sys.exit(miniircd.main())
"""


def _command() -> list[str]:
    return [sys.executable, "-c", _LAUNCH]


class LoopbackServer:
    """One miniircd process on 127.0.0.1; a context manager (start on enter, stop on exit).

    ``port`` None picks a free port once; :meth:`restart` comes back on the same port
    (the bots' reconnect test)."""

    def __init__(self, port: int | None = None, *, name: str = "poki") -> None:
        self.port = port or free_port()
        self.host = HOST
        self.name = name
        self.process: subprocess.Popen | None = None
        self.starts = 0

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, timeout: float = 30.0) -> LoopbackServer:
        """Start the server and wait until it accepts connections."""
        if self.running:
            return self
        args = [*_command(), "--listen", self.host, "--ports", str(self.port)]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args += ["--setuid", "nobody"]
        self.process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                out = self.process.stdout.read().decode(errors="replace") if self.process.stdout else ""
                self.process = None
                raise ServerError(f"miniircd exited at start on {self.address}: {out.strip()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=1.0):
                    self.starts += 1
                    # Its own session (a Ctrl-C meant for us does not kill it first), so
                    # end it when this interpreter ends, whatever the owner forgot.
                    atexit.register(self.stop)
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise ServerError(f"miniircd did not listen on {self.address} within {timeout:g} s")

    def stop(self, timeout: float = 10.0) -> None:
        """End the server process (terminate, then kill) and reap it."""
        proc, self.process = self.process, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout)
        if proc.stdout is not None:
            proc.stdout.close()

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would: no goodbyes to clients."""
        proc, self.process = self.process, None
        if proc is None:
            return
        proc.kill()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()

    def restart(self, timeout: float = 30.0) -> None:
        self.stop()
        self.start(timeout)

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
