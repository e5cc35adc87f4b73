"""The range reader's settings tried in the issue's field (docs/lab/strength.md §14): one
ten-seat duplicate match of `poki` ×2, `mc`, tight-aggressive, `call` ×2 and four range
readers with different settings, as `poki match` plays it (the same setup: seed, chunk
50, two worker processes), printing each spec's row and each reader's difference from the
first reader, paired by deal.

Usage: range_reader_tune.py DEALS SEED READER_SPEC READER_SPEC READER_SPEC READER_SPEC
"""
import sys

import numpy as np

from agent.config import TableConfig
from agent.play.offline.tournament import TournamentSetup, run_tournament

deals, seed, readers = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
specs = ["poki", "poki", "mc", "tight-aggressive", "call", "call", *readers]
setup = TournamentSetup.from_text(specs, TableConfig(seats=10), seed, chunk=50)
result = run_tournament(setup, deals, workers=2)
sb = result.per_deal_sb()
for row in result.by_spec():
    print(f"{row.spec:60s} {row.sb_per_hand:+.3f} ± {row.ci95:.3f}")
written = [str(s) for s in setup.specs]


def paired(x: np.ndarray, label: str) -> None:
    print(f"{label}: {x.mean():+.3f} ± {1.96 * x.std(ddof=1) / np.sqrt(len(x)):.3f}")


for i in range(7, len(specs)):
    paired(sb[:, i] - sb[:, 6], f"{written[i]} - {written[6]}")
paired(sb[:, 0:2].mean(axis=1) - sb[:, 6], f"poki - {written[6]}")
