"""Print the by-spec rows of every finished experiment in this folder as markdown."""
import json
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
for name in sys.argv[1:] or ["field4", "regular4", "cold4", "S4", "S10d", "B4", "fieldAB5"]:
    path = here / f"{name}.json"
    if not path.exists() or path.stat().st_size == 0:
        print(f"| {name} | (not finished) |")
        continue
    d = json.loads(path.read_text())
    for r in d["by_spec"]:
        print(f"| {name} | seed {d['seed']} | {d['deals']} deals x {d['rotations']} = {d['hands']} hands "
              f"| `{r['spec']}` x{r['copies']} | {r['sb_per_hand']:+.3f} ± {r['ci95']:.3f} |")
