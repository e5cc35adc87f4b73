"""OMPEval as a same-run anchor for the evaluator kernels (bench only, never at play time).

OMPEval (Henri Lindell's C++ poker evaluator) is the fastest public 7-card evaluator we
compare with. Its sources ship inside the `omp-wrapper` source distribution on PyPI; this
helper fetches that sdist with pip into a cache directory (or finds it there), extracts
only the evaluator's own files into a temporary directory, compiles our timing driver
(ompeval_driver.cpp beside this file) against them with `g++ -O3 -march=native`, runs it
on a work file of the same inputs Poki's kernels are timed on, and reads its figures.
Nothing of OMPEval is stored in the repository.

Whatever fails (no g++, no network, a bad archive, a driver that crashes) gives
{"available": False, "reason": ...} and the bench goes on.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

DRIVER = Path(__file__).with_name("ompeval_driver.cpp")
# The files of OMPEval's evaluator inside the sdist (src/omp_wrapper/ in omp-wrapper 0.7).
SOURCES = ("HandEvaluator.h", "HandEvaluator.cpp", "Hand.h", "Util.h", "Constants.h", "OffsetTable.hxx")
COMPILE = ("g++", "-O3", "-march=native", "-std=c++14")
# Generous limits: a cold pip download of the 72 MB sdist, a compile, a run on a busy box.
DOWNLOAD_TIMEOUT_S = 600
COMPILE_TIMEOUT_S = 300
RUN_TIMEOUT_S = 900


def cache_dir() -> Path:
    """Where the sdist and the compiled driver are kept between runs."""
    env = os.environ.get("POKI_OMPEVAL_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "poki" / "ompeval"


class AnchorUnavailable(RuntimeError):
    """OMPEval could not be fetched, built or run; the message says why."""


def _find_sdist(where: Path) -> Path | None:
    found = sorted(where.glob("omp_wrapper-*.tar.gz"))
    return found[-1] if found else None


def fetch_sdist(where: Path) -> Path:
    """The omp-wrapper sdist in `where`, downloaded with pip if it is not there yet."""
    where.mkdir(parents=True, exist_ok=True)
    sdist = _find_sdist(where)
    if sdist is not None:
        return sdist
    cmd = [sys.executable, "-m", "pip", "download", "omp-wrapper", "--no-binary", ":all:",
           "--no-deps", "--disable-pip-version-check", "-q", "-d", str(where)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AnchorUnavailable(f"pip download omp-wrapper failed: {exc}") from None
    sdist = _find_sdist(where)
    if done.returncode != 0 or sdist is None:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise AnchorUnavailable(f"pip download omp-wrapper failed: {tail[0]}")
    return sdist


def extract_sources(sdist: Path, dest: Path) -> None:
    """Copy OMPEval's evaluator files out of the sdist into dest, nothing else. The
    archive is untrusted: members are matched by exact base name under src/omp_wrapper/
    and read as data, never extracted by their own paths."""
    wanted = set(SOURCES)
    got: set[str] = set()
    try:
        with tarfile.open(sdist, "r:gz") as tar:
            for member in tar:
                parts = member.name.split("/")
                if (len(parts) == 4 and parts[1:3] == ["src", "omp_wrapper"] and parts[3] in wanted
                        and member.isfile() and member.size < 4_000_000):
                    f = tar.extractfile(member)
                    if f is None:
                        continue
                    (dest / parts[3]).write_bytes(f.read())
                    got.add(parts[3])
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise AnchorUnavailable(f"{sdist.name}: not a readable sdist ({exc})") from None
    missing = wanted - got
    if missing:
        raise AnchorUnavailable(f"{sdist.name}: OMPEval files missing: {', '.join(sorted(missing))}")


def build_driver(where: Path) -> Path:
    """The compiled driver, rebuilt when the sdist or the driver source changes."""
    if shutil.which(COMPILE[0]) is None:
        raise AnchorUnavailable("g++ not found")
    if not DRIVER.is_file():
        raise AnchorUnavailable(f"the driver source {DRIVER} is not installed")
    sdist = fetch_sdist(where)
    digest = hashlib.sha256(sdist.read_bytes() + DRIVER.read_bytes() + " ".join(COMPILE).encode()).hexdigest()[:16]
    exe = where / f"ompeval_driver_{digest}"
    if exe.exists():
        return exe
    with tempfile.TemporaryDirectory(prefix="poki-ompeval-") as tmp:
        src = Path(tmp)
        extract_sources(sdist, src)
        shutil.copy(DRIVER, src / DRIVER.name)
        out = src / "driver"
        cmd = [*COMPILE, "-I", str(src), str(src / DRIVER.name), str(src / "HandEvaluator.cpp"), "-o", str(out)]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise AnchorUnavailable(f"compiling the OMPEval driver failed: {exc}") from None
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["no output"])[0]
            raise AnchorUnavailable(f"compiling the OMPEval driver failed: {first}")
        shutil.copy(out, exe)
    return exe


def write_work(path: Path, cards7: np.ndarray, deals: np.ndarray, npot: int, hs_reps: int,
               repeats: int, weights: np.ndarray) -> None:
    """The driver's input file (format in ompeval_driver.cpp)."""
    c7 = np.ascontiguousarray(cards7, dtype=np.uint8).reshape(-1, 7)
    d = np.ascontiguousarray(deals, dtype=np.uint8).reshape(-1, 5)
    w = np.ascontiguousarray(weights, dtype="<f8").reshape(1326)
    with open(path, "wb") as f:
        f.write(struct.pack("<i", len(c7)) + c7.tobytes())
        f.write(struct.pack("<i", len(d)) + d.tobytes())
        f.write(struct.pack("<iii", npot, hs_reps, repeats))
        f.write(w.tobytes())


def parse_output(text: str) -> dict[str, Any]:
    """The driver's lines as figures; a malformed line is an error naming it."""
    out: dict[str, Any] = {"hs": {}, "pot": {}}
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        try:
            if parts[0] == "hs":
                out["hs"][int(parts[1])] = float(parts[2])
            elif parts[0] == "pot":
                out["pot"][int(parts[1])] = (float(parts[2]), float(parts[3]))
            elif parts[0] == "categories":
                out["categories"] = [int(x) for x in parts[1:]]
            else:
                out[parts[0]] = float(parts[1])
        except (IndexError, ValueError):
            raise AnchorUnavailable(f"OMPEval driver: unreadable output line {line[:80]!r}") from None
    for key in ("eval_from_cards_s_per_hand", "eval_incremental_s_per_hand", "flop_hs_s"):
        if key not in out:
            raise AnchorUnavailable(f"OMPEval driver: no {key} in its output")
    return out


def run_ompeval(cards7: np.ndarray, deals: np.ndarray, npot: int, hs_reps: int, repeats: int,
                weights: np.ndarray) -> dict[str, Any]:
    """OMPEval's CPU-time medians on this work, or {"available": False, "reason": ...}."""
    try:
        exe = build_driver(cache_dir())
        with tempfile.TemporaryDirectory(prefix="poki-ompeval-run-") as tmp:
            work = Path(tmp) / "work.bin"
            write_work(work, cards7, deals, npot, hs_reps, repeats, weights)
            try:
                done = subprocess.run([str(exe), str(work)], capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise AnchorUnavailable(f"OMPEval driver did not finish: {exc}") from None
            if done.returncode != 0:
                raise AnchorUnavailable(f"OMPEval driver exited {done.returncode}: {done.stderr.strip()[:200]}")
            figures = parse_output(done.stdout)
    except (AnchorUnavailable, OSError) as exc:
        return {"available": False, "reason": str(exc)}
    figures["available"] = True
    figures["compiler"] = " ".join(COMPILE)
    return figures
