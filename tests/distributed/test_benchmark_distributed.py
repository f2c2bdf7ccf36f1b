"""benchmarks/distributed.py end to end at its smallest: E2's scalar null step on 1 PS + 1 worker process
prints its rows, and the cluster's processes are gone afterwards, also when the run fails."""

from __future__ import annotations

import os

import pytest

from benchmarks import distributed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_e2_scalar_rows_and_every_process_reaped(capsys):
    with pytest.raises(KeyError, match="after the run"):
        with distributed.local_cluster(num_ps=1, num_workers=1) as cluster:
            pids = cluster.pids()
            assert len(pids) == 2 and all(_alive(pid) for pid in pids)
            results = distributed.run_e2(cluster, [1], num_ps=1, kinds=[("scalar", "scalar", 0, 5)], scale=1.0)
            distributed.print_e2(results, 1)
            raise KeyError("after the run")  # an error inside the block still reaps the cluster
    assert not any(_alive(pid) for pid in pids)
    out = capsys.readouterr().out
    assert set(results) == {("scalar", 1), ("null 1w+1ps", 1)}
    p10, p50, p90, steps_per_s = results[("scalar", 1)]
    assert 0 < p10 <= p50 <= p90 and steps_per_s > 0
    assert "E2 null step, 1 PS" in out
    assert "scalar null step, 1 worker + 1 PS: median" in out and "target <= 2 ms" in out
