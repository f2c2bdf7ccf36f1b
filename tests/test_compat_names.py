"""The TF1 API surface: every public name tensorweave exports exists under the same name in real TF.

tests/fixtures/tf1_public_names.json is `dir()` of `tensorflow.compat.v1` and of its namespaces, recorded
from TensorFlow 2.21: a name TF does not have would run on tensorweave and fail on TF. (It also lists
namespaces tensorweave has not built yet, for tools/api_coverage.py.)
"""

import json
import pathlib

import pytest

import tensorweave.compat.v1 as tf

TF_NAMES = json.loads((pathlib.Path(__file__).parent / "fixtures" / "tf1_public_names.json").read_text())
# Names the issues ask for beyond TF 2.21's compat.v1 listing (TF1's own releases exported them).
EXTRA_NAMES = {"tf": {"TensorShapeProto"}}


@pytest.mark.parametrize("namespace", sorted(n for n in TF_NAMES if n == "tf" or hasattr(tf, n)))
def test_every_exported_name_exists_in_tf(namespace):
    module = tf if namespace == "tf" else getattr(tf, namespace)
    ours = {n for n in dir(module) if not n.startswith("_")
            and getattr(getattr(module, n), "__module__", "") != "builtins"}
    if namespace == "tf":  # submodules of tensorweave.compat.v1 that TF has as namespaces
        ours -= {n for n in ours if type(getattr(module, n)).__name__ == "module" and n in TF_NAMES["tf"]}
    assert sorted(ours - set(TF_NAMES[namespace]) - EXTRA_NAMES.get(namespace, set())) == []


@pytest.mark.parametrize("namespace, name", [
    ("math", "reduce_sum"), ("math", "add"), ("math", "softmax"), ("linalg", "matmul"), ("dtypes", "cast"),
    ("debugging", "is_nan"),
])
def test_namespace_aliases_are_the_top_level_functions(namespace, name):
    top = getattr(tf.nn, name, None) if name == "softmax" else getattr(tf, name)
    assert getattr(getattr(tf, namespace), name) is top


def test_math_namespace_runs():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.Session() as sess:
        total, product, anded, moded = sess.run([
            tf.math.reduce_sum(x, axis=1), tf.linalg.matmul(x, x, transpose_b=True),
            tf.bitwise.bitwise_and(tf.constant([6, 5]), 3, name="and"), tf.math.mod(tf.constant([-3, 3]), 2)])
    assert total.tolist() == [3.0, 7.0]
    assert product.tolist() == [[5.0, 11.0], [11.0, 25.0]]
    assert anded.tolist() == [2, 1]
    assert moded.tolist() == [1, 1]
