"""The differential harness itself: what it records for a value or an error, and what `check` lets pass."""

import numpy as np
import pytest
from differential import TF_PYTHON_ENV, Harness

import tensorweave.compat.v1 as tf

FOUR_PLACES = Harness(tf, places=4)
FIVE_DIGITS = Harness(tf, significant=5, rel_tol=1e-4)


@pytest.fixture(autouse=True)
def literals_only(monkeypatch):
    """These tests check the harness on hand-made recordings, not programs to rerun under TF."""
    monkeypatch.delenv(TF_PYTHON_ENV, raising=False)


def test_floats_are_rounded_as_the_literals_were():
    assert FOUR_PLACES.norm(np.float32([123.456789, np.nan]))["v"] == [123.4568, "nan"]
    assert FIVE_DIGITS.norm(np.float32([123.456789, -np.inf]))["v"] == [123.46, "-inf"]
    assert FIVE_DIGITS.norm(np.complex64([1 + 2j]))["v"] == [[1.0, 2.0]]
    with pytest.raises(ValueError, match="exactly one"):
        Harness(tf, places=4, significant=5)


def test_recorder_records_values_and_errors():
    out, catch, got = FOUR_PLACES.recorder()
    out("t", tf.constant([1, 2], name="c"))
    catch("bad", lambda: tf.constant(1.5, dtype=tf.int32))
    assert got == {"t": {"tensor": "c:0", "dtype": "int32", "shape": "(2,)"},
                   "bad": {"exc": "TypeError", "msg": "Expected int32, but got 1.5 of type 'float'."}}
    with pytest.raises(AssertionError):
        out("t", 1)


def test_a_kernel_error_names_its_op():
    p = tf.placeholder(tf.int32, name="p")
    out, catch, got = FOUR_PLACES.recorder()
    with tf.Session() as s:
        catch("div", lambda: s.run(tf.floordiv(1, p, name="div"), {p: 0}))
    assert got["div"] == {"exc": "InvalidArgumentError", "msg": "Integer division by zero", "op": "div"}


def test_check_is_exact_unless_a_tolerance_is_given():
    FOUR_PLACES.check({"a": {"py": "float", "v": 1.0}}, {"a": {"py": "float", "v": 1.0}})
    with pytest.raises(AssertionError):
        FOUR_PLACES.check({"a": {"py": "float", "v": 1.0001}}, {"a": {"py": "float", "v": 1.0}})
    FIVE_DIGITS.check({"a": {"py": "float", "v": 1.0001}}, {"a": {"py": "float", "v": 1.0}})


def test_check_accounts_for_every_key():
    got = {"a": 1, "b": {"exc": "ValueError", "msg": "x"}, "c": 3}
    FOUR_PLACES.check(got, {"a": 1}, diverges=["c"], classes={"b": "ValueError"})
    with pytest.raises(AssertionError):  # a recorded key nobody listed
        FOUR_PLACES.check(got, {"a": 1}, classes={"b": "ValueError"})
    with pytest.raises(AssertionError):  # a diverging key that was not recorded
        FOUR_PLACES.check(got, {"a": 1}, diverges=["c", "d"], classes={"b": "ValueError"})
    with pytest.raises(AssertionError):  # the wrong exception class
        FOUR_PLACES.check(got, {"a": 1}, diverges=["c"], classes={"b": "TypeError"})
