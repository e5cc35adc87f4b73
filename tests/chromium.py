"""A real headless Chromium driven over the DevTools protocol, for tests of the pages the
project writes: load a file, run JavaScript in it, collect every error the browser
reports (uncaught exceptions, console errors, log entries), take screenshots.

Chromium listens on 127.0.0.1 only, on a port it picks, with a profile in a temporary
folder; ``close`` (or leaving the ``with`` block) ends the process.
"""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import websocket

_LISTENING = re.compile(r"DevTools listening on (ws://127\.0\.0\.1:(\d+)/\S+)")


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    pass


class Chromium:
    def __init__(self, width: int = 1400, height: int = 1000, timeout: float = 60.0) -> None:
        binary = chromium_path()
        if binary is None:
            raise BrowserError("no chromium on this machine (.ci/run installs Debian's chromium)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="poki-chromium-")
        self.errors: list[str] = []
        self.events: list[dict[str, Any]] = []
        self._next_id = 0
        self.proc = subprocess.Popen(
            [binary, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
             "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
             f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        try:
            port = self._wait_for_port()
            page = self._page_target(port)
            self.ws = websocket.create_connection(page, timeout=timeout, suppress_origin=True)
            for domain in ("Page", "Runtime", "Log"):
                self.send(f"{domain}.enable")
        except BaseException:
            self.close()
            raise

    def _wait_for_port(self) -> int:
        found: list[int] = []
        lines: list[str] = []

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                lines.append(line)
                m = _LISTENING.search(line)
                if m and not found:
                    found.append(int(m.group(2)))
            # Keep draining so the browser never blocks on a full pipe.

        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + self.timeout
        while not found:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise BrowserError("chromium did not start: " + "".join(lines[-20:]))
            time.sleep(0.05)
        return found[0]

    def _page_target(self, port: int) -> str:
        deadline = time.monotonic() + self.timeout
        while True:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=self.timeout) as r:
                targets = json.load(r)
            pages = [t for t in targets if t.get("type") == "page"]
            if pages:
                return pages[0]["webSocketDebuggerUrl"]
            if time.monotonic() > deadline:
                raise BrowserError("chromium shows no page target")
            time.sleep(0.1)

    # -- protocol ---------------------------------------------------------------------------

    def _record(self, message: dict[str, Any]) -> None:
        self.events.append(message)
        method = message.get("method")
        params = message.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = params.get("exceptionDetails", {})
            self.errors.append(f"exception: {d.get('text')} {d.get('exception', {}).get('description', '')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}")

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        mid = self._next_id
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == mid:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._record(message)

    def wait_for(self, method: str) -> dict[str, Any]:
        for message in self.events:
            if message.get("method") == method:
                self.events.remove(message)
                return message
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            message = json.loads(self.ws.recv())
            self._record(message)
            if message.get("method") == method:
                self.events.remove(message)
                return message
        raise BrowserError(f"no {method} within {self.timeout} s")

    # -- conveniences ---------------------------------------------------------------------

    def open(self, path: Path | str) -> None:
        url = path if str(path).startswith(("file:", "http:", "about:")) else Path(path).resolve().as_uri()
        self.events.clear()
        self.send("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-able values)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path | str, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            w, h = self.js("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True, clip={"x": 0, "y": 0, "width": w, "height": min(h, 12000), "scale": 1})
        data = self.send("Page.captureScreenshot", **params)["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)

    def close(self) -> None:
        try:
            if getattr(self, "ws", None) is not None:
                self.ws.close()
        finally:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(timeout=20)
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":  # python tests/chromium.py PAGE.html SHOT.png [JS to run first]
    import sys

    with Chromium() as browser:
        browser.open(sys.argv[1])
        if len(sys.argv) > 3:
            print(browser.js(sys.argv[3]))
        browser.screenshot(sys.argv[2])
        print("errors:", browser.errors or "none", file=sys.stderr)
    os._exit(0)
