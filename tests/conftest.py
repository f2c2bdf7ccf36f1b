"""Shared test setup: every test starts from an empty default graph; the shared helper modules next to this
file (`op_testing`, `differential`) get pytest's assertion rewriting, so their failures show the values."""

import pytest

import tensorweave.compat.v1 as tf

pytest.register_assert_rewrite("op_testing", "differential")


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
