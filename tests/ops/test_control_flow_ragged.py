"""RaggedTensors through tf.cond, tf.case, tf.switch_case and tf.while_loop, in v1 (Switch/Merge, frames) and
v2 (If, Case, While) control flow: carried as their flat values and row splits (TF's expand_composites) and
rebuilt; values, static shapes and errors recorded from real TF 2.21."""

from __future__ import annotations

import re

import pytest

import tensorweave.compat.v1 as tf


@pytest.fixture(autouse=True, params=["v1", "v2"])
def control_flow(request):
    if request.param == "v2":
        tf.enable_control_flow_v2()
    else:
        tf.disable_control_flow_v2()
    yield request.param
    tf.disable_control_flow_v2()


def _shapes(rt):
    return rt.shape.as_list(), [s.shape.as_list() for s in rt.nested_row_splits], rt.flat_values.shape.as_list()


def test_cond_case_and_switch_case_return_ragged_tensors():
    x = tf.placeholder(tf.int32, [])
    rt = tf.ragged.constant([[1, 2], [3]])
    rt2 = tf.ragged.constant([[[1], [2, 3]], [[4]]])
    y = tf.cond(x > 0, lambda: rt, lambda: rt * 2)
    z = tf.cond(x > 0, lambda: rt2, lambda: rt2 + 1)
    c = tf.case([(x > 1, lambda: rt), (x > 0, lambda: rt + 10)], default=lambda: rt * 3)
    sc = tf.switch_case(x, [lambda: rt, lambda: rt - 1])
    d = tf.cond(x > 0, lambda: {"a": rt, "b": tf.constant(1)}, lambda: {"a": rt + 1, "b": tf.constant(2)})
    assert isinstance(y, tf.RaggedTensor) and y.ragged_rank == 1 and y.dtype == tf.int32
    assert _shapes(y) == ([2, None], [[3]], [3])
    assert _shapes(z) == ([2, None, None], [[3], [4]], [4])
    assert _shapes(c)[:2] == _shapes(sc)[:2] == ([2, None], [[3]])
    with tf.Session() as s:
        assert [s.run(y, {x: v}).to_list() for v in (1, 0)] == [[[1, 2], [3]], [[2, 4], [6]]]
        assert s.run(z, {x: 0}).to_list() == [[[2], [3, 4]], [[5]]]
        assert [s.run(c, {x: v}).to_list() for v in (2, 1, 0)] == [[[1, 2], [3]], [[11, 12], [13]], [[3, 6], [9]]]
        assert [s.run(sc, {x: v}).to_list() for v in (0, 1)] == [[[1, 2], [3]], [[0, 1], [2]]]
        out = s.run(d, {x: 0})
        assert out["a"].to_list() == [[2, 3], [4]] and out["b"] == 2


def test_cond_of_ragged_tensors_with_other_row_counts():
    x = tf.placeholder(tf.int32, [])
    rt = tf.ragged.constant([[1, 2], [3]])
    y = tf.cond(x > 0, lambda: rt, lambda: tf.ragged.constant([[5], [6, 7, 8], []]))
    with tf.Session() as s:
        assert s.run(y, {x: 0}).to_list() == [[5], [6, 7, 8], []]
        assert s.run(y, {x: 1}).to_list() == [[1, 2], [3]]


@pytest.mark.parametrize("other, detail", [
    (lambda: tf.constant([1, 2]), "is a sequence, while substructure"),
    (lambda: tf.ragged.constant([[[1]]]), "Incompatible CompositeTensor TypeSpecs: type=RaggedTensorSpec"),
    (lambda: tf.ragged.constant([[1., 2.], [3.]]), "Incompatible CompositeTensor TypeSpecs: type=RaggedTensorSpec"),
])
def test_cond_branches_of_other_structures_or_specs_fail_as_tf(control_flow, other, detail):
    x = tf.placeholder(tf.int32, [])
    rt = tf.ragged.constant([[1, 2], [3]])
    error, message = ((ValueError, "Incompatible return values of 'true_fn' and 'false_fn': The two structures")
                      if control_flow == "v1" else
                      (TypeError, "true_fn and false_fn arguments to tf.cond must have the same number, type, and "
                                  "overall structure of return values."))
    with pytest.raises(error, match=re.escape(message)) as e:
        tf.cond(x > 0, lambda: rt, other)
    assert detail in str(e.value)


def test_while_loop_carries_a_ragged_tensor_and_its_gradient():
    rt = tf.ragged.constant([[1, 2], [3]])
    _, out = tf.while_loop(lambda i, r: i < 3, lambda i, r: (i + 1, r * 2), [tf.constant(0), rt])
    assert isinstance(out, tf.RaggedTensor)
    assert _shapes(out) == ([2, None], [[3]], [None])  # the spec's components: the flat values may vary
    v = tf.constant([1., 2., 3.])
    rg = tf.RaggedTensor.from_row_splits(v, [0, 2, 3])
    _, ow = tf.while_loop(lambda i, r: i < 2, lambda i, r: (i + 1, r * 2.), [0, rg])
    g = tf.gradients(tf.reduce_sum(ow.flat_values), v)[0]
    with tf.Session() as s:
        assert s.run(out).to_list() == [[8, 16], [24]]
        assert s.run(g).tolist() == [4., 4., 4.]


def test_while_loop_ragged_rows_grow_only_under_a_shape_invariant():
    rt = tf.ragged.constant([[1, 2], [3]])

    def body(i, r):
        return i + 1, tf.concat([r, r], axis=0)

    with pytest.raises(ValueError, match="RaggedConstant/Const:0.? enters the loop with shape \\(3,\\), but has "
                                         "shape \\(5,\\) after one iteration"):
        tf.while_loop(lambda i, r: i < 2, body, [tf.constant(0), rt])
    i0 = tf.constant(0)
    _, o = tf.while_loop(lambda i, r: i < 2, body, [i0, rt], shape_invariants=[i0.shape, tf.TensorShape([None, None])])
    assert _shapes(o) == ([None, None], [[None]], [None])
    with tf.Session() as s:
        assert s.run(o).to_list() == [[1, 2], [3]] * 4


@pytest.mark.parametrize("body, detail", [
    (lambda i, r: (i + 1, r.flat_values), "is a sequence, while substructure"),
    (lambda i, r: (i + 1, tf.cast(r, tf.float32)), "Incompatible CompositeTensor TypeSpecs"),
])
def test_while_loop_body_results_of_other_structures_fail_as_tf(body, detail):
    rt = tf.ragged.constant([[1, 2], [3]])
    with pytest.raises(ValueError, match="The two structures don't have the same nested structure") as e:
        tf.while_loop(lambda i, r: i < 3, body, [0, rt])
    assert detail in str(e.value)
