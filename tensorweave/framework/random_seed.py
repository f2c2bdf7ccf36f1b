"""TF1's graph-level and op-level seed rules (`tf.set_random_seed`, `get_seed`).

With a graph seed, an op without its own seed gets the next value of a per-graph counter as its seed (as
TF 2's compat.v1 does), so the same program gives the same streams in every new session while different
ops get different streams. Without any seed, kernels draw fresh entropy.
"""

from __future__ import annotations

import weakref

from tensorweave.framework.graph import Graph, get_default_graph
from tensorweave.platform.tf_export import tf_export

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_op_seed_counters: weakref.WeakKeyDictionary[Graph, int] = weakref.WeakKeyDictionary()


def _truncate_seed(seed: int) -> int:
    return seed % _MAXINT32


@tf_export("random.get_seed", "get_seed")
def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
    """The (graph seed, op seed) pair for a new random op, as TF computes it."""
    g = get_default_graph()
    if g.seed is not None:
        if op_seed is None:
            g._seed_used = True  # TF's flag: the graph seed made this op's seeds (tf.data warns of it in a function)
            op_seed = _op_seed_counters.get(g, 0)
            _op_seed_counters[g] = op_seed + 1
        seeds: tuple[int | None, int | None] = (_truncate_seed(g.seed), _truncate_seed(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, _truncate_seed(op_seed))
    else:
        seeds = (None, None)
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds


@tf_export("random.set_random_seed", "set_random_seed")
def set_random_seed(seed: int | None) -> None:
    """Set the graph-level seed of the default graph."""
    get_default_graph().seed = seed
