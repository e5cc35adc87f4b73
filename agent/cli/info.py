"""Show the installed version, which evaluator backend loaded, which modules run compiled,
and the settings in use."""
from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from importlib.metadata import PackageNotFoundError, version


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def run(args: argparse.Namespace) -> int:
    import evaluator_pyx
    from agent import native

    try:
        ver = version("poki")
    except PackageNotFoundError:
        ver = "not installed"
    compiled = native.status()
    try:
        import importlib

        importlib.import_module("evaluator_pyx._simulate")  # bettor=simulator needs it
        simulator = "compiled"
    except ImportError:
        simulator = "missing (bettor=simulator unavailable)"
    try:
        importlib.import_module("agent.engine._cfr")  # the cfr player's trainer and best response need it
        solver = "compiled"
    except ImportError:
        solver = "missing (poki train-cfr and heads-up responses unavailable)"
    info = {"version": ver, "evaluator_backend": evaluator_pyx.BACKEND, "simulator": simulator,
            "abstraction_backend": evaluator_pyx.ABSTRACTION_BACKEND, "cfr_solver": solver,
            "compiled_modules": compiled, "config": asdict(args.settings)}
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        print(f"poki {info['version']}")
        print(f"evaluator backend: {info['evaluator_backend']}")
        print(f"simulator trial loop: {info['simulator']}")
        print(f"card abstraction kernels: {info['abstraction_backend']}; CFR+ solver: {info['cfr_solver']}")
        done = sum(1 for state in compiled.values() if state == "compiled")
        line = f"compiled modules: {done} of {len(compiled)}"
        others = [f"{m} ({state})" for m, state in compiled.items() if state != "compiled"]
        if others:
            line += "; from source: " + ", ".join(others)
        print(line)
        for section, values in info["config"].items():
            print(f"[{section}] " + ", ".join(f"{k}={v}" for k, v in values.items()))
    return 0
