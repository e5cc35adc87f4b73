"""`python -m agent.cli` runs the `poki` command."""
import sys

from agent.cli import main

sys.exit(main())
