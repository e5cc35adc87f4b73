"""Folders a command writes whole (the opponent report, the demo's output): a command
deletes only what it made.

A folder we write holds a marker file, :data:`MARKER`, naming what made it and the
entries it wrote. A folder is replaced or cleared only when it carries our marker of the
same kind, holds nothing beyond the entries the marker lists, and does not hold a file
the caller protects (the database the report is read from); anything else is refused
with an :class:`OutputFolderError` that names the folder and says why, before any work
is done. A folder that does not exist yet, or is empty, is simply taken.

Replacing is renames only (:func:`replace_folder`): the new folder is written beside the
old one, the old one is renamed aside, the new one into its place, and then exactly the
entries the old marker listed are deleted, so a reader sees the old folder or the new
one, never half of one.
"""
from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["MARKER", "OutputFolderError", "check_replaceable", "clear_folder", "mark_folder", "replace_folder"]

MARKER = ".poki-output"
MADE_BY = "poki"


class OutputFolderError(Exception):
    """A folder a command will not write into or replace; the message names it and says why."""


def _read_marker(folder: Path) -> dict | None:
    """The marker of a folder we made, or None (no marker, or one that is not ours)."""
    try:
        with open(folder / MARKER, "rb") as handle:
            data = json.loads(handle.read(1 << 16).decode("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("made_by") != MADE_BY:
        return None
    entries = data.get("entries")
    if not isinstance(entries, list) or not all(isinstance(e, str) and e and "/" not in e and e not in (".", "..")
                                                for e in entries):
        return None
    # Which entries are folders (a marker of an earlier version has none: all files).
    folders = data.setdefault("folders", [])
    if not isinstance(folders, list) or not set(folders) <= set(entries):
        return None
    return data


def mark_folder(folder: Path, kind: str, entries: Iterable[str], folders: Iterable[str] = ()) -> None:
    """Write the marker that says ``folder`` is ours, of ``kind``, holding ``entries``, of
    which ``folders`` are folders and the rest files."""
    names = set(entries) - {MARKER}
    text = json.dumps({"made_by": MADE_BY, "kind": kind, "entries": sorted(names),
                       "folders": sorted(names & set(folders)), "written": time.time()}, indent=1)
    (folder / MARKER).write_text(text + "\n", encoding="utf-8")


def _as_written(folder: Path, name: str, marker: dict) -> bool:
    """Whether entry ``name`` of ``folder`` is what the marker says we wrote there: a
    folder (not a link to one) for a listed folder, a file for the rest. A file we wrote
    that the user has since replaced by a folder of theirs, or a link, is not ours."""
    path = folder / name
    if name in marker["folders"]:
        return path.is_dir() and not path.is_symlink()
    return path.is_file() and not path.is_symlink()


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_replaceable(out: str | Path, kind: str, *, protect: Sequence[str | Path] = ()) -> Path:
    """The absolute path of ``out`` once it is known that it may be written as a folder
    of ``kind``: it does not exist, or is an empty folder, or is a folder of ours of that
    kind holding only what its marker lists; and it holds none of ``protect``. Raises
    OutputFolderError otherwise."""
    folder = Path(os.path.abspath(out))
    for item in protect:
        guarded = Path(os.path.realpath(item))
        if _inside(guarded, Path(os.path.realpath(folder))):
            raise OutputFolderError(f"{out}: the folder holds {item}, which this command reads; "
                                    f"choose another folder")
    if not (folder.exists() or folder.is_symlink()):
        return folder
    if not folder.is_dir():
        raise OutputFolderError(f"{out}: not a folder")
    try:
        present = sorted(os.listdir(folder))
    except OSError as exc:
        raise OutputFolderError(f"{out}: cannot list the folder: {exc.strerror or exc}") from None
    if not present:
        return folder
    marker = _read_marker(folder)
    if marker is None:
        raise OutputFolderError(
            f"{out}: the folder holds files this command did not write ({_some(present)}); choose a new or "
            "empty folder (nothing was changed)")
    if marker.get("kind") != kind:
        raise OutputFolderError(f"{out}: a folder of poki's {marker.get('kind')!r} output, not a {kind} "
                                "folder; choose another folder (nothing was changed)")
    strangers = [name for name in present if name != MARKER
                 and (name not in marker["entries"] or not _as_written(folder, name, marker))]
    if strangers:
        raise OutputFolderError(f"{out}: besides the {kind} it holds files this command did not write "
                                f"({_some(strangers)}); move them or choose another folder (nothing was changed)")
    return folder


def _some(names: Sequence[str], most: int = 4) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _remove_entries(folder: Path, marker: dict) -> None:
    """Delete the entries a folder's marker lists, each only when it is still of the kind
    we wrote (checked again here: it may have changed since check_replaceable)."""
    for name in marker["entries"]:
        if not _as_written(folder, name, marker):
            continue
        path = folder / name
        if name in marker["folders"]:
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def replace_folder(tmp: Path, out: Path, kind: str) -> None:
    """Put the finished folder ``tmp`` (its marker is written here, listing what it holds)
    where ``out`` is, which :func:`check_replaceable` allowed: renames only, then the old
    folder's listed entries are deleted, and the old folder if that leaves it empty."""
    names = os.listdir(tmp)
    mark_folder(tmp, kind, names, [n for n in names if (tmp / n).is_dir() and not (tmp / n).is_symlink()])
    if not (out.exists() or out.is_symlink()):
        os.rename(tmp, out)
        return
    marker = _read_marker(out)
    old = out.with_name(f".{out.name}.old-{os.getpid()}-{time.monotonic_ns()}")
    os.rename(out, old)
    try:
        os.rename(tmp, out)
    except BaseException:
        os.rename(old, out)
        raise
    if marker is not None:
        _remove_entries(old, marker)
        (old / MARKER).unlink(missing_ok=True)
    try:
        os.rmdir(old)
    except OSError:
        # Something arrived in the old folder meanwhile: it stays, under its new name.
        pass


def clear_folder(out: str | Path, kind: str, entries: Iterable[str], *, folders: Iterable[str] = (),
                 protect: Sequence[str | Path] = ()) -> Path:
    """Make ``out`` an empty folder of ours of ``kind``, ready to be written: created when
    missing, else cleared of what the last run listed (check_replaceable's rules; raises
    OutputFolderError). ``entries`` are the names the caller may write in it (``folders``
    of them folders, the rest files), listed in the marker before any is written, so a run
    cut short is cleared by the next."""
    folder = check_replaceable(out, kind, protect=protect)
    if folder.is_dir():
        marker = _read_marker(folder)
        if marker is not None:
            _remove_entries(folder, marker)
    folder.mkdir(parents=True, exist_ok=True)
    mark_folder(folder, kind, entries, folders)
    return folder
