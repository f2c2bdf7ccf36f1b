"""Shared test setup: every test starts from an empty default graph and TF1 behaviour (a test that switches
to TF2's behaviours has them undone after it); the shared helper modules next to this file (`op_testing`,
`differential`) get pytest's assertion rewriting, so their failures show the values.

`TENSORWEAVE_TEST_V2_BEHAVIOR=1` starts every test as a program that called only
`tf.compat.v1.disable_eager_execution()` (v2 TensorShape, resource variables), `=tensorshape` with only
`tf.enable_v2_tensorshape()`: a way to find library code that depends on the mode, not a configuration the
suite is meant to pass in full (many tests check TF1's reprs and ref variables)."""

import os

import pytest

import tensorweave.compat.v1 as tf
from tensorweave.framework import tf2

pytest.register_assert_rewrite("op_testing", "differential")

_V2_BEHAVIOR = {"0": None, "tensorshape": tf.enable_v2_tensorshape}.get(
    os.environ.get("TENSORWEAVE_TEST_V2_BEHAVIOR", "0"), tf.disable_eager_execution)


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    if _V2_BEHAVIOR is not None:
        _V2_BEHAVIOR()
    yield
    tf2.reset()


def pytest_configure(config):
    # TF's functional tf.layers forms warn on every call that they are deprecated, as ours do (checked in
    # tests/layers/test_layer_api.py); the many tests that call them would fill the warnings summary.
    config.addinivalue_line("filterwarnings", r"ignore:`tf\.layers\.\w+` is deprecated:UserWarning")
