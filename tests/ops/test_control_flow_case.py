"""`tf.case` and `tf.switch_case`: values, graphs, assertions and messages recorded from TensorFlow 2.21
(`tf.compat.v1`, v2 behaviour disabled) running the same programs; gradients against central differences."""

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf
from tensorweave import errors
from tests.op_testing import check_gradient


def _three_cases(x):
    def pairs(second):
        first = tf.less(x, 3)
        return [(first, lambda: tf.constant(17)), (second(), lambda: tf.constant(23))]

    plain = tf.case(pairs(lambda: tf.greater(x, 5)), default=lambda: tf.constant(-1))
    exclusive = tf.case(pairs(lambda: tf.less(x, 5)), default=lambda: tf.constant(-1), exclusive=True, name="ex")
    no_default = tf.case(pairs(lambda: tf.greater(x, 5)), name="nodef")
    return plain, exclusive, no_default


def test_case_values_and_tfs_graph():
    x = tf.placeholder(tf.int32, [], name="x")
    plain, exclusive, no_default = _three_cases(x)
    assert (plain.name, exclusive.name, no_default.name) == ("case/cond/Merge:0", "ex/cond/Merge:0",
                                                             "nodef/cond/Merge:0")
    graph = {op.name: (op.type, [t.name for t in op.inputs], sorted(c.name for c in op.control_inputs))
             for op in tf.get_default_graph().get_operations()}
    # a few of the nodes TF builds (the whole graph was compared node by node with TF's)
    assert graph["case/cond/cond/Switch/Switch"] == ("Switch", ["Greater:0", "case/cond/pred_id:0"], [])
    assert graph["ex/cond/Switch"] == ("Switch", ["Less_1:0", "Less_1:0"], ["ex/Assert/AssertGuard/Merge"])
    assert graph["nodef/cond/Const_2"] == ("Const", [], ["nodef/cond/Assert/AssertGuard/Merge",
                                                          "nodef/cond/Assert_1/AssertGuard/Merge"])
    assert graph["nodef/cond/preds_c"] == ("Pack", ["nodef/cond/preds_c/Switch:0", "nodef/cond/preds_c/Switch_1:0"],
                                           [])
    with tf.Session() as sess:
        assert [sess.run(plain, {x: v}) for v in (0, 4, 7)] == [17, -1, 23]
        assert [sess.run(exclusive, {x: v}) for v in (4, 7)] == [23, -1]
        assert [sess.run(no_default, {x: v}) for v in (0, 7)] == [17, 23]
        with pytest.raises(errors.InvalidArgumentError) as info:
            sess.run(exclusive, {x: 0})
        assert info.value.node_def.name == "ex/Assert/AssertGuard/Assert"
        assert runtime_message(info.value).startswith("assertion failed: [Input error: exclusive=True: more than 1 "
                                             "conditions (Less_1:0, Less_2:0) evaluated as True:] [1 1]")
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"assertion failed: \[Input error: None of conditions evaluated as True:\] "
                                 r"\[0 0\]") as info:
            sess.run(no_default, {x: 4})
        assert info.value.node_def.name == "nodef/cond/Assert_1/AssertGuard/Assert"


def test_case_dicts_structures_and_strict():
    x = tf.placeholder(tf.int32, [])
    by_name = tf.case({tf.less(x, 3, name="b_pred"): lambda: tf.constant(1),
                       tf.less(x, 5, name="a_pred"): lambda: tf.constant(2)}, default=lambda: tf.constant(3))
    strict = tf.case([(tf.less(x, 3), lambda: [tf.constant(1)])], default=lambda: [tf.constant(2)], strict=True)
    unpacked = tf.case([(tf.less(x, 3), lambda: [tf.constant(1)])], default=lambda: [tf.constant(2)])
    nested = tf.case([(tf.less(x, 3), lambda: {"a": tf.constant(1), "b": (tf.constant(2.0), tf.constant(3.0))})],
                     default=lambda: {"a": tf.constant(4), "b": (tf.constant(5.0), tf.constant(6.0))})
    assert isinstance(strict, list) and isinstance(unpacked, tf.Tensor)
    assert nested["b"][1].name == "case_3/cond/Merge_2:0"
    with tf.Session() as sess:
        assert [sess.run(by_name, {x: v}) for v in (0, 4, 7)] == [2, 2, 3]  # a_pred's pair is tested first
        assert sess.run([strict, unpacked], {x: 0}) == [[1], 1]
        assert sess.run(nested, {x: 9}) == {"a": 4, "b": (5.0, 6.0)}


def test_case_argument_errors():
    x = tf.placeholder(tf.int32, [], name="x")
    with pytest.raises(TypeError, match="^'pred_fn_pairs' must be a list, tuple, or dict. Received: <class 'int'>$"):
        tf.case(3)
    with pytest.raises(TypeError, match=r"^Each entry in 'pred_fn_pairs' must be a 2-tuple. Received \(<tf.Tensor "
                                        r"'Less:0' shape=\(\) dtype=bool>,\).$"):
        tf.case([(tf.less(x, 3),)])
    with pytest.raises(TypeError, match="^pred must be a Tensor, got: True$"):
        tf.case([(True, lambda: 1)])
    with pytest.raises(TypeError, match="^pred must be Tensor of type bool: x:0$"):
        tf.case([(x, lambda: 1)])
    with pytest.raises(TypeError, match="^fn for pred Less_1:0 must be callable.$"):
        tf.case([(tf.less(x, 3), 3)])
    with pytest.raises(ValueError, match=r"^not enough values to unpack \(expected 2, got 0\)$"):
        tf.case([])


def test_switch_case_values_defaults_and_errors():
    i = tf.placeholder(tf.int32, [], name="i")
    with_default = tf.switch_case(i, [lambda: tf.constant(10), lambda: tf.constant(20)], default=lambda: tf.constant(-1))
    largest_key = tf.switch_case(i, {1: lambda: tf.constant(20), 0: lambda: tf.constant(10)})
    with tf.Session() as sess:
        assert [sess.run([with_default, largest_key], {i: v}) for v in (-1, 0, 1, 2, 5)] == [
            [-1, 20], [10, 10], [20, 20], [-1, 20], [-1, 20]]
    for call, error, message in [
            (lambda: tf.switch_case(3, [lambda: 1]), TypeError, "'branch_index' must be a Tensor, got <class 'int'>"),
            (lambda: tf.switch_case(tf.constant(1.0), [lambda: 1]), TypeError,
             "'branch_index' must be an integer Tensor, got <dtype: 'float32'>"),
            (lambda: tf.switch_case(i, []), ValueError, "Must provide at least one item in 'branch_fns'"),
            (lambda: tf.switch_case(i, {0: lambda: 1, 2: lambda: 2}), ValueError,
             "branch indices (keys) must form contiguous range of [0 to 2) but found {0,2}"),
            (lambda: tf.switch_case(i, [(0, 1)]), TypeError, "fn for key 0 must be callable."),
            (lambda: tf.switch_case(i, [(0.5, lambda: 1)]), TypeError, "key must be a Python `int`, got <class 'float'>")]:
        with pytest.raises(error) as info:
            call()
        assert str(info.value) == message


def test_case_and_switch_case_gradients():
    def by_case(x, p):
        return tf.case([(p > 1.0, lambda: tf.sin(x) * x), (p > 0.0, lambda: x * x * 3.0)], default=lambda: -x)

    def by_index(x, k):
        return tf.switch_case(k, [lambda: x * x, lambda: tf.exp(x)], default=lambda: x * 2.0)

    x = np.array([0.3, -1.2, 2.0])
    for p in (2.0, 0.5, -1.0):
        check_gradient(by_case, [x, np.float64(p)])
    for k in (0, 1, 7):
        check_gradient(by_index, [x, np.int32(k)])
    with tf.Graph().as_default():
        xs = tf.constant(x)
        k = tf.placeholder(tf.int32, [])
        (grad,) = tf.gradients(by_index(xs, k), [xs])
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(grad, {k: 1}), np.exp(x))
            np.testing.assert_allclose(sess.run(grad, {k: 4}), [2.0, 2.0, 2.0])
