"""Assert, Print, PrintV2, CheckNumerics and the tf.assert_* family against messages and text recorded from
TF 2.21 (`tensorflow.compat.v1`, graph mode)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf
from tensorweave import errors


def _run(build: Callable[[], Any], feed: Any = None, runs: int = 1) -> Any:
    with tf.Graph().as_default() as g, tf.Session() as sess:
        fetch = build()
        feeds = {g.get_tensor_by_name("x:0"): feed} if feed is not None else None
        for _ in range(runs):
            result = sess.run(fetch, feeds)
        return result


def _run_error(build: Callable[[], Any], feed: Any = None) -> tuple[str, str | None]:
    """The first lines of the runtime error's message and the failing node's name (None where the data's
    summary holds a '[[' before the node's tag: TF's Session takes the op from the message's first '[[')."""
    with pytest.raises(errors.InvalidArgumentError) as info:
        _run(build, feed)
    return runtime_message(info.value).split("\n\t")[0], info.value.op and info.value.op.name


def _build_error(build: Callable[[], Any], error: type) -> str:
    with tf.Graph().as_default(), pytest.raises(error) as info:
        build()
    return str(info.value)


def _x(dtype: Any = tf.float32) -> Any:
    return tf.placeholder(dtype, name="x")


# -- Assert ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("data, summarize, feed, message", [
    (lambda: ["x is", _x(), tf.constant(3)], None, [[-1.5, 2, 3], [4, 5, 6]], "assertion failed: [x is] [[-1.5 2 3]...] [3]"),
    (lambda: ["x is", _x(tf.int32)], 10, np.arange(-3, 9).reshape(3, 2, 2),
     "assertion failed: [x is] [[[-3 -2][-1 0]][[1 2][3 4]][[5 6]]...]"),
    (lambda: [_x(tf.float64), tf.constant([True, False]), tf.constant(["ab", "c"]), tf.constant(2.5, tf.float16)], -1,
     np.linspace(0, 1, 7), "assertion failed: [0 0.16666666666666666 0.33333333333333331 0.5 0.66666666666666663 "
     "0.83333333333333326 1] [1 0] [ab c] [2.5]"),
    (lambda: [_x(), tf.zeros([2, 0])], None, np.zeros([0]), "assertion failed: [] []"),
    (lambda: [_x()], None, np.arange(24.).reshape(2, 3, 4) + 0.25, "assertion failed: [[[0.25 1.25 2.25...]]...]"),
    (lambda: [_x()], 10, np.array([1e10, 1e-5, 123456789.0, 0.1, np.nan, -np.inf]),
     "assertion failed: [1e+10 1e-05 123456792 0.1 nan -inf]"),
    (lambda: [_x(tf.float64)], 10, [1e10, 1e-5, 1 / 3], "assertion failed: [10000000000 1e-05 0.33333333333333331]"),
    (lambda: [_x(tf.complex64), tf.constant(np.array([1, 2], np.uint8))], 10, [1 + 2j, 3.5 - 1j],
     "assertion failed: [? ?] [1 2]"),
])
def test_assert_summarises_data_as_tf(data: Callable, summarize: int | None, feed: Any, message: str) -> None:
    def build() -> Any:
        values = data()
        return tf.Assert(tf.constant(False), values, summarize=summarize)
    text, node = _run_error(build, feed)
    assert text == message
    assert node is None if "[[" in message else node.startswith("Assert/")


def test_assert_graph_matches_tf1() -> None:
    with tf.Graph().as_default() as g:
        x = _x()
        op = tf.Assert(x > 0, [x], name="chk")
        assert [(o.name, o.type) for o in g.get_operations()][3:] == [
            ("chk/AssertGuard/Switch", "Switch"), ("chk/AssertGuard/switch_t", "Identity"),
            ("chk/AssertGuard/switch_f", "Identity"), ("chk/AssertGuard/pred_id", "Identity"),
            ("chk/AssertGuard/NoOp", "NoOp"), ("chk/AssertGuard/control_dependency", "Identity"),
            ("chk/AssertGuard/Assert", "Assert"), ("chk/AssertGuard/Assert/Switch", "Switch"),
            ("chk/AssertGuard/Assert/Switch_1", "Switch"), ("chk/AssertGuard/control_dependency_1", "Identity"),
            ("chk/AssertGuard/Merge", "Merge")]
        assert (op.name, op.type) == ("chk/AssertGuard/Merge", "Merge")
        host = tf.Assert(tf.constant(1) > 0, [tf.constant(1), "s"])  # int32 and strings: no guard
        assert (host.name, host.type, host.get_attr("summarize")) == ("Assert/Assert", "Assert", 3)
        assert tf.debugging.Assert is tf.Assert
        with tf.Session() as sess:
            sess.run(op, {x: 1.0})
            with pytest.raises(errors.InvalidArgumentError, match=r"assertion failed: \[-1\]"):
                sess.run(op, {x: -1.0})


def test_assert_condition_must_be_scalar() -> None:
    assert _run_error(lambda: tf.Assert(tf.constant([True]), [1])) == ("In[0] should be a scalar: [1]", "Assert/Assert")


# -- the tf.assert_* family ------------------------------------------------------------------------------

@pytest.mark.parametrize("build, message", [
    (lambda: tf.assert_equal([1, 2, 3], [1, 2, 4]), "Condition x == y did not hold element-wise:\n"
     "x (assert_equal_1/x:0) = \n[1 2 3]\ny (assert_equal_1/y:0) = \n[1 2 4]"),
    (lambda: tf.assert_equal(tf.constant([1., 2]), 1., message="boo", summarize=1),
     "boo\nCondition x == y did not hold element-wise:\nx (Const:0) = \n[1. 2.]\ny (assert_equal_1/y:0) = \n1.0"),
    (lambda: tf.assert_less([1, 3], 2), "Condition x < y did not hold element-wise:\nx (assert_less/x:0) = \n"
     "[1 3]\ny (assert_less/y:0) = \n2"),
    (lambda: tf.assert_less_equal([[1, 3]], 2), "Condition x <= y did not hold element-wise:\n"
     "x (assert_less_equal/x:0) = \n[[1 3]]\ny (assert_less_equal/y:0) = \n2"),
    (lambda: tf.assert_greater(1, 2, message="m", name="nm"),
     "m\nCondition x > y did not hold element-wise:\nx (nm/x:0) = \n1\ny (nm/y:0) = \n2"),
    (lambda: tf.assert_positive([1, -2]), "\nCondition x > 0 did not hold element-wise:\n"
     "x (assert_positive/x:0) = \n[ 1 -2]"),
    (lambda: tf.assert_non_negative([-1.5]), "\nCondition x >= 0 did not hold element-wise:\n"
     "x (assert_non_negative/x:0) = \n[-1.5]"),
    (lambda: tf.assert_non_positive([1.5]), "\nCondition x <= 0 did not hold element-wise:"
     "x (assert_non_positive/x:0) = \n[1.5]"),
])
def test_static_failures_raise_at_build(build: Callable, message: str) -> None:
    assert _build_error(build, errors.InvalidArgumentError) == message


@pytest.mark.parametrize("build, feed, message, node", [
    (lambda: tf.assert_equal(_x(), [1., 2, 3, 4]), [1., 2, 3, 5],
     "assertion failed: [Condition x == y did not hold element-wise:] [x (x:0) = ] [1 2 3...] "
     "[y (assert_equal_1/y:0) = ] [1 2 3...]", "assert_equal_1/Assert/AssertGuard/Assert"),
    (lambda: tf.assert_equal(_x(), 1., data=["hi", tf.constant(5)], message="M"), [1., 2],
     "assertion failed: [M] [hi] [5]", "assert_equal_1/Assert/Assert"),
    (lambda: tf.assert_none_equal(_x(), [1., 2]), [1., 3],
     "assertion failed: [Condition x != y did not hold element-wise:] [x (x:0) = ] [1 3] "
     "[y (assert_none_equal/y:0) = ] [1 2]", "assert_none_equal/Assert/AssertGuard/Assert"),
    (lambda: tf.assert_greater_equal(_x(), 2.), [1., 3],
     "assertion failed: [Condition x >= y did not hold element-wise:] [x (x:0) = ] [1 3] "
     "[y (assert_greater_equal/y:0) = ] [2]", "assert_greater_equal/Assert/AssertGuard/Assert"),
    (lambda: tf.assert_positive(_x()), [1., -3, 4, 5],
     "assertion failed: [] [Condition x > 0 did not hold element-wise:] [x (x:0) = ] [1 -3 4...]",
     "assert_positive/assert_less/Assert/AssertGuard/Assert"),
    (lambda: tf.assert_negative(_x(), message="hm"), [1., -3],
     "assertion failed: [hm.  ] [Condition x < 0 did not hold element-wise:] [x (x:0) = ] [1 -3]",
     "assert_negative/assert_less/Assert/AssertGuard/Assert"),
    (lambda: tf.assert_non_positive(_x()), [1.5],
     "assertion failed: [] [Condition x <= 0 did not hold element-wise:x (x:0) = ] [1.5]",
     "assert_non_positive/assert_less_equal/Assert/AssertGuard/Assert"),
    (lambda: tf.assert_near(_x(), [1., 2]), [1., 2.1],
     'assertion failed: [] [x and y not equal to tolerance rtol = Tensor(\\"assert_near/rtol:0\\", shape=(), '
     'dtype=float32), atol = Tensor(\\"assert_near/atol:0\\", shape=(), dtype=float32)] [x (x:0) = ] [1 2.1] '
     "[y (assert_near/y:0) = ] [1 2]", "assert_near/Assert/AssertGuard/Assert"),
    (lambda: tf.assert_rank(_x(), 2), np.zeros([2, 3, 1]),
     "assertion failed: [] [Tensor x:0 must have rank] [2] [Received shape: ] [2 3 1]", "assert_rank/Assert/Assert"),
    (lambda: tf.assert_rank_at_least(_x(), 3), np.zeros([2, 3]),
     "assertion failed: [] [Tensor x:0 must have rank at least] [3] [Received shape: ] [2 3]",
     "assert_rank_at_least/Assert/Assert"),
    (lambda: tf.assert_rank_in(_x(), [1, 3]), np.zeros([2, 3]),
     "assertion failed: [] [Tensor x:0 must have rank in] [1] [3] [Received shape: ] [2 3]",
     "assert_rank_in/Assert/Assert"),
])
def test_dynamic_failures_fail_the_step(build: Callable, feed: Any, message: str, node: str) -> None:
    assert _run_error(build, feed) == (message, node)


@pytest.mark.parametrize("build, feed", [
    (lambda: tf.assert_equal(_x(), [1., 2]), [1., 2]),
    (lambda: tf.debugging.assert_less(_x(), 3.), [1., 2]),
    (lambda: tf.assert_near(_x(tf.float64), np.array([1., 2])), np.array([1., 2 + 1e-15])),
    (lambda: tf.assert_rank(tf.zeros([2]), _x(tf.int32)), 1),
    (lambda: tf.assert_non_negative(_x()), [0., 2]),
])
def test_passing_asserts_run(build: Callable, feed: Any) -> None:
    assert _run(build, feed) is None


def test_statically_settled_asserts_are_no_ops() -> None:
    with tf.Graph().as_default():
        x = _x()
        assert tf.assert_equal(x, x).name == "assert_equal/NoOp"
        assert tf.assert_rank(tf.zeros([1]), 1).name == "assert_rank/static_checks_determined_all_ok"
        assert tf.assert_type(tf.zeros([1]), tf.float32).name == "assert_type/statically_determined_correct_type"
        assert tf.assert_integer(tf.constant([1])).name == "assert_integer/statically_determined_was_integer"
        assert tf.assert_scalar(3, name="foo").name == "foo:0"


def test_static_check_sees_only_what_tf_python_constant_value_sees() -> None:
    """An operand computed by arithmetic (x - 2) is not static to TF's Python check, so a failing assert is
    built as an Assert that fails when run, not raised at build."""
    with tf.Graph().as_default():
        check = tf.assert_positive(tf.constant([1.0, 2.0, 3.0]) - 2)
        assert check.name == "assert_positive/assert_less/Assert/AssertGuard/Merge"
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="Condition x > 0 did not"):
            sess.run(check)


@pytest.mark.parametrize("build, error, message", [
    (lambda: tf.assert_rank(tf.zeros([2, 3]), 1), ValueError,
     "Tensor zeros:0 must have rank 1.  Received rank 2, shape (2, 3)"),
    (lambda: tf.assert_rank(tf.zeros([2, 3]), 1, message="r"), ValueError,
     "r.  Tensor zeros:0 must have rank 1.  Received rank 2, shape (2, 3)"),
    (lambda: tf.assert_rank(tf.zeros([2]), [1, 2]), ValueError, "Rank must be a scalar."),
    (lambda: tf.assert_rank(tf.zeros([2]), 1.), TypeError, "assert_rank/rank:0 must be of type tf.int32; got tf.float32"),
    (lambda: tf.assert_rank_at_least(tf.zeros([2, 3]), 3), ValueError,
     "Tensor zeros:0 must have rank at least 3.  Received rank 2, shape (2, 3)"),
    (lambda: tf.assert_rank_in(tf.zeros([2, 3]), (1, 3)), ValueError,
     "Tensor zeros:0 must have rank in (1, 3).  Received rank 2, shape (2, 3)"),
    (lambda: tf.assert_type(tf.constant([1.]), tf.int32, message="t"), TypeError,
     "t.  Const:0 must be of type tf.int32; got tf.float32"),
    (lambda: tf.assert_integer(tf.constant([1.]), message="i"), TypeError,
     "i.  Expected \"x\" to be integer type.  Found: Const:0 of dtype <dtype: 'float32'>"),
    (lambda: tf.assert_scalar(tf.constant([1.])), ValueError, "Expected scalar shape for Const:0, saw shape: (1,)."),
    (lambda: tf.assert_scalar(tf.constant([1.]), message="s"), ValueError,
     "s.  Expected scalar shape for Const:0, saw shape: (1,)."),
    (lambda: tf.is_non_decreasing(tf.constant(["a"])), TypeError,
     'Expected x to be numeric, instead found: Tensor("is_non_decreasing/Reshape:0", shape=(1,), dtype=string)'),
])
def test_static_checks_raise_tf_errors(build: Callable, error: type, message: str) -> None:
    assert _build_error(build, error) == message


def test_proper_iterable_numeric_and_float_dtype() -> None:
    with tf.Graph().as_default():
        a, b, c = tf.constant(1.), tf.constant(1., tf.float64), tf.constant(1)
        for value, found in [(a, "<class 'tensorweave.framework.graph.SymbolicTensor'>"), (np.array([1]), "<class 'numpy.ndarray'>"),
                             ("ab", "<class 'str'>"), (b"ab", "<class 'bytes'>")]:
            with pytest.raises(TypeError) as info:
                tf.assert_proper_iterable(value)
            assert str(info.value) == f'Expected argument "values" to be a "proper" iterable.  Found: {found}'
        with pytest.raises(TypeError, match=r"^Expected argument \"values\" to be iterable.  Found: <class 'int'>$"):
            tf.assert_proper_iterable(3)
        tf.assert_proper_iterable([1])
        assert tf.assert_same_float_dtype([a, a]) == tf.float32
        assert tf.assert_same_float_dtype() == tf.float32
        for args, message in [(([a, None, b],), "Const_1:0, type=<dtype: 'float64'>, must be of the same type "
                                                  "(<dtype: 'float32'>) as Const:0."),
                              (([c],), "Expected floating point type, got <dtype: 'int32'>."),
                              (([a], tf.float64), "Const:0, type=<dtype: 'float32'>, must be of the same type "
                                                   "(<dtype: 'float64'>).")]:
            with pytest.raises(ValueError) as info:
                tf.assert_same_float_dtype(*args)
            assert str(info.value) == message
        assert [tf.is_numeric_tensor(v) for v in (a, tf.constant("s"), 1.0, tf.constant(True))] == [
            True, False, False, False]


def test_monotonic_predicates() -> None:
    def build() -> list:
        return [tf.is_non_decreasing(_x()), tf.math.is_strictly_increasing(tf.constant([[1, 2], [2, 3]])),
                tf.debugging.is_strictly_increasing([1]), tf.is_non_decreasing([[1, 1]])]
    assert _run(build, [3., 3, 4]) == [True, False, True, True]


# -- CheckNumerics -------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, found", [
    (np.array([1., np.nan], np.float32), "NaN"), (np.array([np.inf, 1]), "Inf"),
    (np.array([np.inf, np.nan], np.float16), "Inf and NaN")])
def test_check_numerics(value: np.ndarray, found: str) -> None:
    assert _run_error(lambda: tf.check_numerics(tf.constant(value), "my msg")) == (
        f"my msg : Tensor had {found} values", "CheckNumerics")


def test_check_numerics_passes_finite_values_and_checks_dtype() -> None:
    assert _run(lambda: tf.debugging.check_numerics(tf.constant([1., 2]), "m")).tolist() == [1., 2.]
    assert _build_error(lambda: tf.check_numerics(tf.constant([1]), "m"), TypeError) == (
        "Value passed to parameter 'tensor' has DataType int32 not in list of allowed values: bfloat16, float16, "
        "float32, float64")


def test_verify_tensor_all_finite() -> None:
    with tf.Graph().as_default() as g:
        out = tf.verify_tensor_all_finite(tf.constant([1., np.inf]), "vmsg")
        assert [(o.name, o.type, o.colocation_groups()) for o in g.get_operations()] == [
            ("Const", "Const", [b"loc:@Const"]), ("VerifyFinite/CheckNumerics", "CheckNumerics", [b"loc:@Const"]),
            ("VerifyFinite/control_dependency", "Identity", [b"loc:@Const"])]
        with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError, match="vmsg : Tensor had Inf values"):
            sess.run(out)
    assert _run(lambda: tf.debugging.assert_all_finite(x=tf.constant([1., 2]), message="v2")).tolist() == [1., 2.]
    assert _build_error(lambda: tf.verify_tensor_all_finite(1., x=1.), ValueError) == "Cannot specify both 't' and 'x'."


def test_add_check_numerics_ops() -> None:
    with tf.Graph().as_default() as g:
        a = tf.constant([1., 2], name="a")
        b = tf.log(a - 1., name="b")
        tf.constant([1, 2], name="c")
        tf.identity(b * 2, name="d")
        op = tf.add_check_numerics_ops()
        checks = [(o.name, o.get_attr("message"), [i.name for i in o.control_inputs])
                  for o in g.get_operations() if o.type == "CheckNumerics"]
        assert checks == [("CheckNumerics", b"a:0", []), ("CheckNumerics_1", b"sub/y:0", ["CheckNumerics"]),
                          ("CheckNumerics_2", b"sub:0", ["CheckNumerics_1"]), ("CheckNumerics_3", b"b:0", ["CheckNumerics_2"]),
                          ("CheckNumerics_4", b"mul/y:0", ["CheckNumerics_3"]),
                          ("CheckNumerics_5", b"mul:0", ["CheckNumerics_4"]), ("CheckNumerics_6", b"d:0", ["CheckNumerics_5"])]
        assert op.name == "group_deps"
        with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError, match="b:0 : Tensor had Inf values") as info:
            sess.run(op)
        assert info.value.op.name == "CheckNumerics_3"
    def in_cond() -> Any:
        a = tf.constant(1.)
        tf.cond(tf.constant(True), lambda: a + 1, lambda: a)
        return tf.add_check_numerics_ops()
    assert _build_error(in_cond, ValueError) == (
        "`tf.add_check_numerics_ops() is not compatible with TensorFlow control flow operations such as `tf.cond()` "
        "or `tf.while_loop()`.")


# -- Print and tf.print ----------------------------------------------------------------------------------

def _printed(build: Callable[[], Any], capfd: pytest.CaptureFixture, runs: int = 2) -> tuple[str, str]:
    capfd.readouterr()
    _run(build, runs=runs)
    return capfd.readouterr()


@pytest.mark.parametrize("build, text", [
    (lambda: tf.Print(tf.constant([1., 2, 3, 4]), [tf.constant([[1, 2], [3, 4]]), tf.constant("s"),
                                                  tf.constant([True, False])], message="msg: "),
     "msg: [[1 2][3...]...][s][1 0]\n" * 2),
    (lambda: tf.Print(tf.constant(1), [], first_n=1), "\n"),
    (lambda: tf.Print(tf.constant(1), [tf.constant(np.arange(24).reshape(2, 3, 4)), tf.constant(np.zeros([2, 0]))],
                      summarize=7), "[[[0 1 2 3][4 5 6...]]...][]\n" * 2),
    (lambda: tf.Print(tf.constant(1), ['a\nb"c é \x01'], message="m"), 'm[a\\nb\\"c é \\001]\n' * 2),  # TF 2.21
])
def test_print_writes_tf1_text_to_stderr(build: Callable, text: str, capfd: pytest.CaptureFixture) -> None:
    assert _printed(build, capfd) == ("", text)


def test_print_passes_its_input_through() -> None:
    with tf.Graph().as_default() as g:
        out = tf.Print(tf.constant([1, 2]), [tf.constant(1)])
        assert [(o.name, o.type) for o in g.get_operations()] == [("Const", "Const"), ("Const_1", "Const"),
                                                                 ("Print", "Print")]
        assert out.shape.as_list() == [2]
        with tf.Session() as sess:
            assert sess.run(out).tolist() == [1, 2]


@pytest.mark.parametrize("build, text", [
    (lambda: tf.print(tf.constant([1., 2, 3, 4])), "[1 2 3 4]\n"),
    (lambda: tf.print("a", tf.constant(np.arange(1, 17).reshape(4, 4)), 3, {"k": tf.constant(1)}, [1, tf.constant(2.5)],
                      sep="|", end="$\n"),
     "a|[[1 2 3 4]\n [5 6 7 8]\n [9 10 11 12]\n [13 14 15 16]]|3|{'k': 1}|[1, 2.5]$\n"),
    (lambda: tf.print(tf.constant(["ab", "c"]), tf.constant(True), tf.constant([True, False]),
                      tf.constant(np.arange(24).reshape(2, 3, 4)), summarize=2),
     '["ab" "c"] 1 [1 0] [[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n'
     "  [20 21 22 23]]]\n"),
    (lambda: tf.print(tf.constant("only string")), "only string\n"),
    (lambda: tf.print(tf.constant(np.arange(8.).reshape(2, 4) / 3), tf.constant(np.float32(1) / 3),
                      tf.constant(np.zeros([0])), tf.constant(np.zeros([2, 0])), tf.constant(1e10),
                      tf.constant(123456789.0), summarize=-1),
     "[[0 0.33333333333333331 0.66666666666666663 1]\n [1.3333333333333333 1.6666666666666667 2 2.3333333333333335]]"
     " 0.333333343 [] [\n ...] 1e+10 123456792\n"),
    (lambda: tf.print(), "\n"),
    (lambda: tf.print("plain {} % text", 1.5, None, True, "s"), "plain {} % text 1.5 None True s\n"),
    (lambda: tf.print(tf.constant(np.arange(30).reshape(5, 6)), tf.constant(np.arange(5)), tf.constant(["a\"b", "'"]),
                      tf.constant(np.arange(16).reshape(2, 2, 2, 2)), summarize=2),
     '[[0 1 ... 4 5]\n [6 7 ... 10 11]\n ...\n [18 19 ... 22 23]\n [24 25 ... 28 29]] [0 1 ... 3 4] ["a\\"b" "\\\'"] '
     "[[[[0 1]\n   [2 3]]\n\n  [[4 5]\n   [6 7]]]\n\n\n [[[8 9]\n   [10 11]]\n\n  [[12 13]\n   [14 15]]]]\n"),
    (lambda: tf.print(tf.constant(np.arange(6.).reshape(2, 3)), tf.constant(np.array([0.1, -2.5, np.nan, np.inf],
                      np.float32)), tf.constant(5), end=""), "[[0 1 2]\n [3 4 5]] [0.1 -2.5 nan inf] 5"),
    (lambda: tf.print("a", {"b": 1, "a": [tf.constant(2), "z"]}, (tf.constant(3),), sep=", "),
     "a, {'a': [2, 'z'], 'b': 1}, (3,)\n"),
    (lambda: tf.print(tf.constant([[1 + 2j]]), tf.constant(np.array([1.5], np.float16)),
                      tf.constant(np.array([-3, 100], np.int8)), tf.constant(np.array([1, 2, 3, 4], np.int64)),
                      summarize=2), "[?] [1.5] [-3 100] [1 2 3 4]\n"),
    (lambda: tf.print(tf.SparseTensor([[0, 1]], [3], [2, 2])),  # pformat's quotes stay, as in TF
     "'SparseTensor(indices=[[0 1]], values=[3], shape=[2 2])'\n"),
    (lambda: tf.print("x", [tf.SparseTensor([[1]], [2.5], [3])]), "x ['SparseTensor(indices=[[1]], values=[2.5], shape=[3])']\n"),
])
def test_tf_print_formats_as_tf(build: Callable, text: str, capfd: pytest.CaptureFixture) -> None:
    assert _printed(build, capfd) == ("", text * 2)


def test_tf_print_graph_streams_and_errors(capfd: pytest.CaptureFixture) -> None:
    with tf.Graph().as_default() as g:
        op = tf.print("x", tf.constant(1))
        assert [(o.name, o.type) for o in g.get_operations()] == [
            ("Const", "Const"), ("StringFormat", "StringFormat"), ("PrintV2", "PrintV2")]
        assert g.get_operation_by_name("StringFormat").get_attr("template") == b"x {}"
        assert op.name == "PrintV2" and op.get_attr("end") == b"\n"
    assert _printed(lambda: tf.print("a", tf.constant(2), output_stream=sys.stdout), capfd) == ("a 2\n" * 2, "")
    assert _build_error(lambda: tf.print("x", output_stream="bad"), ValueError) == (
        "Unsupported output stream, logging level, or file.bad. Supported streams are sys.stdout, sys.stderr, "
        "tf.logging.info, tf.logging.warning, tf.logging.error. File needs to be in the form of 'file://<filepath>'.")
    assert _build_error(lambda: tf.print("x", foo=1), ValueError) == (
        "Unrecognized keyword arguments for tf.print: {'foo': 1}")
    assert _build_error(lambda: tf.raw_ops.PrintV2(input=tf.constant(["a"])), ValueError).startswith(
        "input must be a scalar, but has rank: 1")


def test_tf_print_to_file(tmp_path: Any) -> None:
    path = tmp_path / "out.txt"
    _run(lambda: tf.print("v", tf.constant([1, 2]), output_stream=f"file://{path}"), runs=2)
    assert path.read_text() == "v [1 2]\n" * 2


def test_assert_shapes_static_and_at_run_time():
    with tf.Graph().as_default():
        x = tf.zeros([2, 3], name="x")
        y = tf.zeros([3], name="y")
        s = tf.zeros([], name="s")
        z = tf.zeros([4, 2, 3], name="z")
        assert tf.debugging.assert_shapes([(x, ("N", "Q")), (y, ("Q",)), (s, []), (z, ("...", "N", "Q"))]).type == \
            "NoOp"
        assert tf.debugging.assert_shapes({x: (2, 3), y: ["Q"], s: (".",)}).type == "NoOp"
        assert tf.debugging.assert_shapes([(z, ("*", 3)), (x, ("*", "Q"))]).type == "NoOp"
        cases = [
            ([(x, ("N",))], None, "Tensor x:0 must have rank in (0, 1).  Received rank 2, shape (2, 3)"),
            ([(y, ("N", "Q"))], "hello", "hello.  Tensor y:0 must have rank 2.  Received rank 1, shape (3,)"),
            ([(x, ("N", "Q")), (y, ("N",))], None, "Specified by tensor x:0 dimension 0.  Tensor y:0 dimension 0 "
             "must have size 2.  Received size 3, shape (3,)"),
            ([(x, (2, 4))], "m", "m.  Specified explicitly.  Tensor x:0 dimension 1 must have size 4.  Received "
             "size 3, shape (2, 3)"),
            ([(x, 3)], None, "Tensor x:0.  Specified shape must be an iterable.  An iterable has the attribute "
             "`__iter__` or `__getitem__`.  Received specified shape: 3"),
            ([(y, ("*", "A", "B"))], None, "Tensor y:0 must have rank at least 2.  Received rank 1, shape (3,)"),
            ([(s, (2,))], None, "Specified explicitly.  Tensor s:0 dimension 0 must have size 2.  Received size 1, "
             "shape ()"),
            ([(x, (2, ..., 3))], None, "Tensor x:0 specified shape index 1.  Symbol `...` or `*` for a variable "
             "number of unspecified dimensions is only allowed as the first entry"),
        ]
        for shapes, message, expected in cases:
            with pytest.raises(ValueError) as info:
                tf.debugging.assert_shapes(shapes, message=message)
            assert str(info.value) == expected
        p = tf.placeholder(tf.float32, [None, 3], name="p")
        q = tf.placeholder(tf.float32, None, name="q")
        same = tf.debugging.assert_shapes([(p, ("N", "Q")), (x, ("N", "Q"))])
        explicit = tf.debugging.assert_shapes([(q, ("N", 3)), (x, (2, "Q"))])
        vector = tf.debugging.assert_shapes([(q, ("N",))])
        with tf.Session() as sess:
            sess.run(same, {p: np.zeros((2, 3))})
            sess.run(vector, {q: 1.0})
            failures = [(same, {p: np.zeros((5, 3))}, r"\[Specified by tensor p:0 dimension 0\] \[Tensor x:0 "
                         r"dimension\] \[0\] \[must have size\] \[5\] \[Received shape: \] \[2 3\]"),
                        (explicit, {q: np.zeros((2, 4))}, r"\[Specified explicitly\] \[Tensor q:0 dimension\] \[1\] "
                         r"\[must have size\] \[3\] \[Received shape: \] \[2 4\]"),
                        (explicit, {q: np.zeros((2,))}, "must have rank"),
                        (vector, {q: np.zeros((2, 2))}, r"\[Tensor q:0 must have rank in\] \[0\] \[1\]")]
            for op, feed, match in failures:
                with pytest.raises(tf.errors.InvalidArgumentError, match=match):
                    sess.run(op, feed)
