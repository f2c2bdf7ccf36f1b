"""tf.summary's TF2-style helpers in TF1 graph mode, as recorded from TF 2.21."""

import pytest

import tensorweave.compat.v1 as tf


def test_helpers_like_tf():
    with tf.Graph().as_default():
        assert tf.summary.all_v2_summary_ops() == []
        with pytest.raises(RuntimeError, match="^No default tf.contrib.summary.SummaryWriter found$"):
            tf.summary.initialize()
    with pytest.raises(ValueError, match="^Can't get_summary_description on ScalarSummary$"):
        tf.summary.get_summary_description(tf.NodeDef(op="ScalarSummary"))
    node = tf.NodeDef(op="TensorSummary")
    node.attr["description"].s = b'{"type_hint": "x"}'
    description = tf.summary.get_summary_description(node)
    assert type(description).__name__ == "SummaryDescription" and description.type_hint == "x"
