"""Test helpers for the ACPC tests: a scripted dealer on a real loopback socket."""
from __future__ import annotations

import socket
import threading


class ScriptedDealer:
    """Listens on 127.0.0.1, accepts one player, reads its greeting, then plays a script:
    ("send", bytes) writes bytes as they are; ("expect", text) reads the player's next
    line and records whether it was ``text``; ("close",) hangs up. Everything the player
    sent is kept in ``received``; a mismatch or a hang is kept in ``problems``."""

    def __init__(self, script, timeout: float = 30.0) -> None:
        self.script = script
        self.timeout = timeout
        self.received: list[str] = []
        self.problems: list[str] = []
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.listener.settimeout(self.timeout)
        try:
            conn, _ = self.listener.accept()
        except OSError as exc:
            self.problems.append(f"no player: {exc}")
            return
        conn.settimeout(self.timeout)
        buf = b""

        def read_line() -> str | None:
            nonlocal buf
            while b"\r\n" not in buf:
                try:
                    data = conn.recv(65536)
                except OSError as exc:
                    self.problems.append(f"read failed: {exc}")
                    return None
                if not data:
                    return None
                buf += data
            line, _, buf = buf.partition(b"\r\n")
            text = line.decode("ascii")
            self.received.append(text)
            return text

        try:
            greeting = read_line()
            if greeting != "VERSION:2.0.0":
                self.problems.append(f"greeting {greeting!r}")
            for step in self.script:
                if step[0] == "send":
                    conn.sendall(step[1])
                elif step[0] == "expect":
                    got = read_line()
                    if got != step[1]:
                        self.problems.append(f"expected {step[1]!r}, got {got!r}")
                        return
                elif step[0] == "close":
                    break
        finally:
            conn.close()

    def close(self) -> None:
        self.listener.close()
        self.thread.join(30)


def states(*lines: str, end: bytes = b"\r\n") -> tuple:
    return ("send", b"".join(line.encode() + end for line in lines))


class DealerThread:
    """Our ACPC dealer (agent.play.acpc.match.host_match) in a thread, heads-up: seat 0
    waits for a remote player on ``port``, seat 1 plays ``house`` in-process."""

    def __init__(self, hands: int, seed: int, house: str = "house=call", limits=None, log_file=None) -> None:
        from agent.play.acpc.dealer_seats import DealerLimits
        from agent.play.acpc.match import host_match
        from connectors.acpc.game import standard_game

        game = "holdem.limit.2p.reverse_blinds.game"
        self.ready = threading.Event()
        self.port = 0
        self.outcome = None
        self.error: BaseException | None = None

        def listening(ports):
            self.port = ports[0]
            self.ready.set()

        def run():
            try:
                self.outcome, _ = host_match(standard_game(game), ["remote", "house"], hands, seed, seats={1: house},
                                             game_name=game, on_listen=listening, log_file=log_file,
                                             limits=limits or DealerLimits(30, 30, 60))
            except BaseException as exc:  # noqa: BLE001 - raised by join()
                self.error = exc
            finally:
                self.ready.set()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert self.ready.wait(60) and self.port

    def join(self):
        self.thread.join(120)
        assert not self.thread.is_alive()
        assert self.error is None, self.error
        return self.outcome
