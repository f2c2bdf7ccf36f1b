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
