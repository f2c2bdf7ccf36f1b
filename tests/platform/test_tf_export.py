"""The public API table: names declared once where implemented, namespaces filled from it."""

import types

import pytest

from tensorweave.platform import tf_export


@pytest.fixture(autouse=True)
def saved_table():
    saved = {namespace: dict(entries) for namespace, entries in tf_export._API.items()}
    yield
    tf_export._API.clear()
    tf_export._API.update(saved)


def test_a_declared_function_fills_every_namespace_it_names():
    @tf_export.tf_export("test_ns.f", "test_ns.sub.g")
    def f():
        return 1

    tf_export.export_value(42, "test_ns.answer", "test_ns.__answer__")
    assert tf_export.names("test_ns") == {"f": f, "answer": 42, "__answer__": 42}
    assert tf_export.names("test_ns.sub") == {"g": f}
    module = {"__all__": ["kept"], "kept": 0, "sub": types.ModuleType("sub"), "_helper": types.ModuleType("h")}
    tf_export.populate(module, "test_ns")
    assert module["f"] is f and module["answer"] == 42 and module["__answer__"] == 42
    assert module["__all__"] == ["answer", "f", "kept", "sub"]  # public names, sub-namespace modules included


def test_a_name_is_declared_once():
    tf_export.export_value(1, "test_ns.x")
    tf_export.export_value(1, "test_ns.x")  # the same object again is harmless
    with pytest.raises(ValueError, match=r"tf.test_ns.x is already declared for 1"):
        tf_export.export_value(2, "test_ns.x")
    with pytest.raises(ValueError, match="is not a dotted Python name"):
        tf_export.export_value(3, "test_ns.not-a-name")
    with pytest.raises(ValueError, match="no public name given"):
        tf_export.export_value(3)


def test_a_call_that_does_not_fit_is_worded_as_tf_words_it():
    """TF 2.21 checks the arguments of the functions its C++ API dispatcher wraps ("Got an ..."); its generated
    op wrappers and the rest fail with Python's own message."""
    import tensorweave.compat.v1 as tf

    cases = [(lambda: tf.reduce_sum([1, 2], bogus=1), "Got an unexpected keyword argument 'bogus'"),
             (lambda: tf.matmul([[1.0]], [[1.0]], bogus=1), "Got an unexpected keyword argument 'bogus'"),
             (lambda: tf.zeros([2], bogus=1), "Got an unexpected keyword argument 'bogus'"),
             (lambda: tf.reshape([1], [1], [1], [1]), "Too many arguments were given. Expected 3 but got 4."),
             (lambda: tf.concat([[1]], 0, axis=0), "Got multiple values for argument 'axis'"),
             (lambda: tf.cos(1.0, bogus=1), "cos() got an unexpected keyword argument 'bogus'"),
             (lambda: tf.nn.relu(1.0, bogus=1), "relu() got an unexpected keyword argument 'bogus'"),
             (lambda: tf.bitwise.bitwise_and(1, 2, bogus=1), "bitwise_and() got an unexpected keyword argument 'bogus'"),
             (lambda: tf.placeholder(tf.float32, bogus=1), "placeholder() got an unexpected keyword argument 'bogus'")]
    for call, message in cases:
        with tf.Graph().as_default(), pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == message
