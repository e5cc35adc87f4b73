"""The layout's import contracts (pyproject.toml, [tool.importlinter]) hold, and they would
catch an import that points the wrong way."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("agent", "connectors", "db", "evaluator_pyx")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(
    not LINT_IMPORTS.exists() and os.environ.get("POKI_REQUIRE_REFERENCES") != "1",
    reason="import-linter (dev extra) is not installed")


def _lint(root: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run([str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=600)


def _source_copy(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    shutil.copy(REPO / "pyproject.toml", root)
    for package in PACKAGES:
        shutil.copytree(REPO / package, root / package,
                        ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__", "*.html", "data"))
    return root


def test_the_tree_keeps_its_import_contracts() -> None:
    result = _lint(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize("module, line, contract", [
    ("agent/game/context.py", "from agent.play.offline.dealer import Dealer", "Layers"),
    ("connectors/logs/phh.py", "import db.database", "Connectors translate formats"),
    ("db/schema.py", "from agent.engine import player", "The database knows only the game and the models"),
    ("agent/engine/triples.py", "import connectors.logs.phh", "know neither connectors"),
    # The models sit below the engine and know neither connectors nor the database.
    ("agent/models/prediction.py", "from agent.engine import simulator", "Layers"),
    ("agent/models/learned.py", "import db.learned", "know neither connectors"),
    # Connectors carry wire formats only: the dealers' table logic is agent.play's.
    ("connectors/irc/dialect.py", "from agent.play.irc import table", "Connectors translate formats"),
    ("connectors/acpc/protocol.py", "from agent.models import frequencies", "Connectors translate formats"),
])
def test_a_wrong_import_breaks_a_contract(tmp_path: Path, module: str, line: str, contract: str) -> None:
    root = _source_copy(tmp_path)
    path = root / module
    path.write_text(path.read_text() + f"\n{line}  # pointing the wrong way\n")
    result = _lint(root)
    assert result.returncode != 0
    broken = result.stdout[result.stdout.index("Broken contracts"):]
    assert contract in broken
