"""Solve heads-up limit hold'em in an abstract game by CFR+ and write the strategy file the
`cfr` player reads (docs/strength.md §12 says exactly what the abstract game is).

First the card abstraction's chance model is measured on sampled deals (--buckets per
round, --flops sampled flops with --turns turns each and --rivers rivers on each turn);
then CFR+ runs in batches of --batch iterations on --threads cores, and after each batch
the exact best response of each player to the other's average strategy gives the
exploitability of the strategy in the abstract game (mbb/hand), printed as a row.

--checkpoint FILE keeps the regrets and sums (and the chance model); --resume FILE
continues from one, with the same abstraction, adding --iterations more. The strategy file
(--out) and the checkpoint are written at the end and after a batch every --save-every
seconds, so an interrupted run loses at most that much; --log-json FILE writes the
exploitability rows.

Examples:
    poki train-cfr --buckets 5,5,5,5 --flops 3000 --iterations 2000 --batch 100 --out cfr.npz
    poki train-cfr --resume run.ckpt --iterations 1000 --batch 100 --out cfr.npz --checkpoint run.ckpt
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from agent.cli import arguments

MAX_FLOPS = 1_000_000  # sampled flops: the default is 3,000; each holds every holding's buckets
MAX_THREADS = 1024

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--buckets", default="5,5,5,5",
                        help="buckets per round, pre-flop,flop,turn,river (default 5,5,5,5)")
    parser.add_argument("--flops", type=arguments.whole(1, MAX_FLOPS, "a number of flops"), default=3000,
                        help="flops sampled to measure the chance model (default 3000)")
    parser.add_argument("--turns", type=arguments.whole(1, 48, "a number of turns"), default=4, help="turns sampled on each flop (default 4)")
    parser.add_argument("--rivers", type=arguments.whole(1, 48, "a number of rivers"), default=4, help="rivers sampled on each turn (default 4)")
    parser.add_argument("--seed", type=arguments.seed, default=None, help="seed of the sampled deals (default: [random] seed)")
    parser.add_argument("--iterations", type=arguments.count, default=1000, help="CFR+ iterations to run (default 1000)")
    parser.add_argument("--batch", type=arguments.positive_count, default=100,
                        help="iterations between best-response measurements (default 100)")
    parser.add_argument("--delay", type=arguments.count, default=0,
                        help="CFR+ averaging delay: iteration t weighs max(0, t - delay) (default 0)")
    parser.add_argument("--threads", type=arguments.whole(1, MAX_THREADS, "a number of threads"), default=2, help="cores the solver uses (default 2)")
    parser.add_argument("--workers", type=arguments.whole(1, MAX_THREADS, "a number of processes"), default=2,
                        help="processes measuring the chance model (default 2)")
    parser.add_argument("--out", required=True, metavar="FILE", help="the strategy file to write (.npz)")
    parser.add_argument("--checkpoint", metavar="FILE", help="keep the solver's state here after every batch")
    parser.add_argument("--resume", metavar="FILE", help="continue from this checkpoint")
    parser.add_argument("--log-json", metavar="FILE", help="write the exploitability rows as JSON")
    parser.add_argument("--save-every", type=arguments.seconds, default=300.0, metavar="SECONDS",
                        help="write the strategy file and checkpoint after a batch at most this often "
                             "(default 300; they are always written at the end)")
    parser.add_argument("--flop-table", action=argparse.BooleanOptionalAction, default=True,
                        help="keep the flop buckets of all 1,755 canonical flops in the file, so a flop is a "
                             "look-up in play (default: on; about 20 s of one core more)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar while measuring")


def _buckets(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise ValueError(f"--buckets: expected four whole numbers like 5,5,5,5, got {text!r}") from None
    if len(values) != 4 or any(not 1 <= v <= 50 for v in values):
        raise ValueError(f"--buckets: four numbers of 1-50, got {text!r}")
    return values


def run(args: argparse.Namespace) -> int:
    from agent.engine.abstraction import measure
    from agent.engine.equilibrium import AbstractGame, EquilibriumError, StrategyFile, Trainer, chance_from_checkpoint
    from agent.outputs import write_output

    try:
        buckets = _buckets(args.buckets)
    except ValueError as exc:
        print(f"poki train-cfr: {exc}", file=sys.stderr)
        return 2
    if args.iterations < 0 or args.batch < 1 or args.threads < 1 or args.workers < 1 or args.flops < 1 \
            or args.turns < 1 or args.rivers < 1 or args.turns + args.rivers > 49:
        print("poki train-cfr: --iterations must be >= 0; --batch, --threads, --workers, --flops, --turns, "
              "--rivers >= 1 (--turns + --rivers at most 49)", file=sys.stderr)
        return 2
    # Every output checked before the chance model is measured: a path that cannot be
    # written is said now, not after minutes of training. --checkpoint may be the file
    # --resume reads (it is read whole first); --out and --log-json may not.
    resume = args.resume
    if resume is not None and args.checkpoint is not None and \
            os.path.realpath(resume) == os.path.realpath(args.checkpoint):
        resume = None
    if arguments.outputs_refused("train-cfr", args, {"--out": args.out, "--checkpoint": args.checkpoint,
                                                     "--log-json": args.log_json},
                                 [(f"the checkpoint {resume} (--resume)", resume)]):
        return 2
    seed = args.settings.random.seed if args.seed is None else args.seed
    t0 = time.perf_counter()
    if args.resume:
        try:
            chance = chance_from_checkpoint(args.resume)
        except (OSError, EquilibriumError, KeyError, ValueError) as exc:
            print(f"poki train-cfr: cannot resume from {args.resume}: {exc}", file=sys.stderr)
            return 2
        print(f"resuming {args.resume}: buckets {','.join(map(str, chance.abstraction.buckets))}")
    else:
        bar = None
        progress = None
        if not args.no_progress:
            from tqdm import tqdm

            total = args.flops + (1755 if args.flop_table else 0)
            bar = tqdm(total=total, unit="flop", desc="chance model", file=sys.stderr, disable=None)
            progress = bar.update
        try:
            chance = measure(buckets, args.flops, seed=seed, turns=args.turns, rivers=args.rivers,
                             workers=args.workers, progress=progress, with_flop_table=args.flop_table)
        finally:
            if bar is not None:
                bar.close()
        print(f"chance model: buckets {args.buckets}, {chance.samples['river_boards']:,} river boards, "
              f"{chance.samples['holding_sequences']:,} holding sequences, dependence of the players' "
              f"(pre-flop, flop) buckets {chance.dependence:.4f} (total variation); "
              f"{time.perf_counter() - t0:.1f} s")
    game = AbstractGame(chance)
    trainer = Trainer(game, threads=args.threads, delay=args.delay)
    if args.resume:
        try:
            trainer.load_checkpoint(args.resume)
        except (OSError, EquilibriumError, KeyError, ValueError) as exc:
            print(f"poki train-cfr: cannot resume from {args.resume}: {exc}", file=sys.stderr)
            return 2
    print(f"abstract game: {len(game.tree.decision_nodes()):,} betting nodes, {game.size:,} strategy entries; "
          f"{args.threads} thread(s)")
    print(f"{'iterations':>10}  {'seconds':>9}  {'exploitability mbb/hand':>24}  {'BR p0':>9}  {'BR p1':>9}")

    saved = [time.monotonic()]

    def on_batch(row: dict) -> None:
        print(f"{row['iterations']:>10}  {row['seconds']:>9.1f}  {row['exploitability_mbb']:>24.2f}  "
              f"{row['br0_mbb']:>9.2f}  {row['br1_mbb']:>9.2f}", flush=True)
        if time.monotonic() - saved[0] >= args.save_every:
            if args.checkpoint:
                trainer.save_checkpoint(args.checkpoint)
            StrategyFile.write(args.out, game, trainer.average(), trainer.log.rows,
                               {"iterations": trainer.iterations, "delay": trainer.delay})
            saved[0] = time.monotonic()

    trainer.run(args.iterations, args.batch, on_batch)
    checksum = StrategyFile.write(args.out, game, trainer.average(), trainer.log.rows,
                                  {"iterations": trainer.iterations, "delay": trainer.delay})
    if args.checkpoint:
        trainer.save_checkpoint(args.checkpoint)
    if args.log_json:
        with write_output(args.log_json) as fh:
            json.dump({"buckets": list(game.abstraction.buckets), "threads": args.threads,
                       "load_average": list(os.getloadavg()), "rows": trainer.log.rows}, fh, indent=1)
    print(f"wrote {args.out}: {trainer.iterations} iterations, sha256 {checksum}")
    return 0
