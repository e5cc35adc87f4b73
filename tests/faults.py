"""Fault injection for the tests: a read-only folder and a full disk, made real where the
machine allows (a small tmpfs mounted by root, as on CI), else by the nearest real means
(a file without write permission for other users; SQLite's own page limit for a full
disk). Each helper says which it used, and every mount it makes is unmounted by the test
that made it."""
from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path


def _mount(target: Path, size_kb: int) -> bool:
    target.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0755", "tmpfs", str(target)],
                              capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _umount(target: Path) -> None:
    """Unmount, and if something still holds a file there (a test that failed with a
    connection open), detach it lazily so the machine is left as it was."""
    done = subprocess.run(["umount", str(target)], capture_output=True, timeout=60)
    if done.returncode != 0:
        subprocess.run(["umount", "-l", str(target)], capture_output=True, timeout=60)


def can_mount() -> bool:
    """Whether this process may mount a tmpfs (root with the capability, as on CI)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    probe = Path(f"/tmp/poki-mount-probe-{os.getpid()}")
    try:
        if not _mount(probe, 64):
            return False
        _umount(probe)
        return True
    finally:
        with contextlib.suppress(OSError):
            probe.rmdir()


MOUNT = can_mount()
# How the tests make a full disk and a read-only file on this machine (in their ids).
FULL_DISK = "tmpfs" if MOUNT else "sqlite-page-limit"
READ_ONLY = "ro-mount" if MOUNT else ("chmod" if os.geteuid() != 0 else "none")


@contextlib.contextmanager
def read_only_copy(files: list[Path], where: Path) -> Iterator[Path]:
    """A folder holding copies of ``files`` that nobody, root included, can write:
    a tmpfs remounted read-only, or (not root) a folder and files without write bits."""
    folder = where / "ro"
    if READ_ONLY == "ro-mount":
        assert _mount(folder, 64 * 1024)
        try:
            for f in files:
                shutil.copy(f, folder / f.name)
            done = subprocess.run(["mount", "-o", "remount,ro", str(folder)], capture_output=True, timeout=60)
            assert done.returncode == 0, done.stderr
            yield folder
        finally:
            _umount(folder)
    elif READ_ONLY == "chmod":
        folder.mkdir()
        for f in files:
            shutil.copy(f, folder / f.name)
            os.chmod(folder / f.name, 0o444)
        os.chmod(folder, 0o555)
        try:
            yield folder
        finally:
            os.chmod(folder, 0o755)
    else:
        raise RuntimeError("no way to make a read-only file here")


@contextlib.contextmanager
def small_disk(where: Path, size_kb: int) -> Iterator[Path]:
    """A folder on a tmpfs of ``size_kb`` KB (FULL_DISK == 'tmpfs' only)."""
    folder = where / "disk"
    assert _mount(folder, size_kb)
    try:
        yield folder
    finally:
        _umount(folder)


def fill(folder: Path, leave_kb: int) -> Path:
    """Fill the file system of ``folder`` until about ``leave_kb`` KB are free; the filler's path."""
    filler = folder / "filler"
    with open(filler, "wb") as f:
        while True:
            st = os.statvfs(folder)
            free = st.f_bavail * st.f_frsize
            if free <= leave_kb * 1024:
                break
            try:
                f.write(b"\0" * min(free - leave_kb * 1024, 1 << 20))
                f.flush()
            except OSError:
                break
    return filler


@contextlib.contextmanager
def page_limit(monkeypatch, extra_pages: int) -> Iterator[None]:
    """Every SQLite connection opened meanwhile may grow its file by ``extra_pages`` pages:
    past that, writes fail with SQLite's 'database or disk is full'."""
    real = sqlite3.connect

    def connect(*args, **kwargs):
        conn = real(*args, **kwargs)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {max(1, pages) + extra_pages}")
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)
    try:
        yield
    finally:
        monkeypatch.setattr(sqlite3, "connect", real)


def stored_hands(db: Path) -> int:
    """Hands in a database file (its connection closed at once: a mount can be released)."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT count(*) FROM hands").fetchone()[0]
    finally:
        conn.close()
