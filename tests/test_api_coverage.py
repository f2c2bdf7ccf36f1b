"""tools/api_coverage.py counts, per TF1 namespace, the recorded TF names that tensorweave exports."""

from tools import api_coverage


def test_coverage_counts_exported_names_per_namespace():
    table = api_coverage.coverage()
    theirs, ours = table["tf"]
    assert {"Session", "placeholder", "while_loop", "cond", "gradients"} <= ours <= theirs
    assert table["nest"][1] == table["nest"][0]  # every tf.nest name is there
    assert table["saved_model"][0] and all(isinstance(n, str) for n in table["saved_model"][0])
