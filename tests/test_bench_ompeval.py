"""The OMPEval anchor helper of `poki bench` (agent/bench/ompeval.py): a downloaded
archive is untrusted, so only OMPEval's own files are taken from it, by name, and a bad
archive or bad driver output makes the anchor unavailable with a reason instead of
stopping the bench. With the omp-wrapper sdist already in the cache and g++ present, the
driver is built and must compute what our kernels compute on the same deals.
"""
from __future__ import annotations

import io
import shutil
import tarfile
from pathlib import Path

import numpy as np
import pytest

import evaluator_pyx as ev
from agent.bench import ompeval


def make_sdist(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def good_members(prefix: str = "omp_wrapper-0.7/src/omp_wrapper/") -> dict[str, bytes]:
    return {prefix + name: f"// {name}\n".encode() for name in ompeval.SOURCES}


def test_extract_takes_only_the_evaluator_files(tmp_path: Path) -> None:
    members = good_members()
    members["omp_wrapper-0.7/src/omp_wrapper/../../../../escape.h"] = b"evil"
    members["../HandEvaluator.h"] = b"evil"
    members["omp_wrapper-0.7/setup.py"] = b"import os"
    sdist = make_sdist(tmp_path / "omp_wrapper-0.7.tar.gz", members)
    dest = tmp_path / "out"
    dest.mkdir()
    ompeval.extract_sources(sdist, dest)
    assert sorted(p.name for p in dest.iterdir()) == sorted(ompeval.SOURCES)
    assert (dest / "HandEvaluator.h").read_bytes() == b"// HandEvaluator.h\n"
    assert not (tmp_path / "escape.h").exists()


def test_missing_files_and_non_archives_are_named(tmp_path: Path) -> None:
    members = good_members()
    del members["omp_wrapper-0.7/src/omp_wrapper/OffsetTable.hxx"]
    sdist = make_sdist(tmp_path / "omp_wrapper-0.7.tar.gz", members)
    with pytest.raises(ompeval.AnchorUnavailable, match="OffsetTable.hxx"):
        ompeval.extract_sources(sdist, tmp_path)
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not a tar at all")
    with pytest.raises(ompeval.AnchorUnavailable, match="junk.tar.gz"):
        ompeval.extract_sources(junk, tmp_path)


def test_bad_driver_output_is_an_error_naming_the_line() -> None:
    with pytest.raises(ompeval.AnchorUnavailable, match="flop_hs_s banana"):
        ompeval.parse_output("eval_from_cards_s_per_hand 1e-9\nflop_hs_s banana\n")
    with pytest.raises(ompeval.AnchorUnavailable, match="no flop_hs_s"):
        ompeval.parse_output("eval_from_cards_s_per_hand 1e-9\neval_incremental_s_per_hand 1e-9\n")


def test_a_broken_cached_sdist_leaves_the_anchor_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "omp_wrapper-0.7.tar.gz").write_bytes(b"\x1f\x8b broken")
    monkeypatch.setenv("POKI_OMPEVAL_CACHE", str(tmp_path))
    rng = np.random.default_rng(0)
    out = ompeval.run_ompeval(np.zeros((1, 7), np.uint8), np.zeros((1, 5), np.uint8), 0, 1, 1, rng.random(1326))
    assert out["available"] is False
    assert out["reason"]


def test_driver_computes_what_we_compute(tmp_path: Path) -> None:
    """Needs g++ and the omp-wrapper sdist already cached (no download from a test)."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not installed")
    cached = sorted(ompeval.cache_dir().glob("omp_wrapper-*.tar.gz"))
    if not cached:
        pytest.skip(f"no omp-wrapper sdist in {ompeval.cache_dir()} (poki bench --only kernels fetches it)")
    rng = np.random.default_rng(42)
    masks = ev.random_hand_masks(rng, 2000, 7, unique=True)
    cards7 = ev.cards_from_masks(masks, 7)
    deals = np.array([rng.choice(52, 5, replace=False) for _ in range(3)], dtype=np.uint8)
    weights = rng.random(1326)
    out = ompeval.run_ompeval(cards7, deals, 1, 1, 1, weights)
    assert out["available"], out.get("reason")
    for i, d in enumerate(deals):
        hole, board = ev.cards_to_mask(d[:2].tolist()), ev.cards_to_mask(d[2:].tolist())
        assert out["hs"][i] == pytest.approx(ev.hand_strength(hole, board, weights), abs=1e-9)
    hole, board = ev.cards_to_mask(deals[0][:2].tolist()), ev.cards_to_mask(deals[0][2:].tolist())
    assert out["pot"][0] == pytest.approx(ev.hand_potential(hole, board, weights, 2), abs=1e-9)
    values = ev.evaluate_batch(masks)
    cats = [sum(1 for v in values if ev.hand_category(int(v)) == c) for c in ev_categories()]
    assert out["categories"] == cats


def ev_categories() -> tuple[str, ...]:
    from evaluator_pyx import _core

    return _core.CATEGORIES
