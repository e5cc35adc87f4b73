"""`--cluster ADDRESS|local` of `poki match` and `poki replay`: connect to (or start) the
Dask cluster, or say clearly why not. Dask is imported only when the option is given."""
from __future__ import annotations

import argparse
import sys
from typing import Any


class NoCluster(Exception):
    """The cluster could not be reached; the reason has been printed."""


def open_cluster(args: argparse.Namespace, command: str) -> Any:
    """The cluster named by ``args.cluster`` (None without the option), announced on
    stderr. Raises NoCluster after printing why it could not be opened."""
    if not args.cluster:
        return None
    from agent.play.offline.cluster import Cluster, ClusterError

    try:
        cluster = Cluster.open(args.cluster, workers=args.workers, timeout=args.cluster_timeout)
    except ClusterError as exc:
        print(f"poki {command}: {exc}", file=sys.stderr)
        raise NoCluster from None
    print(f"poki {command}: {cluster.describe()}", file=sys.stderr)
    return cluster
