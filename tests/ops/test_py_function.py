"""`tf.py_function` (EagerPyFunc) and the eager execution inside it; expected values recorded from TF 2.21."""

import numpy as np
import pytest
from google.protobuf import text_format
from op_testing import runtime_message

import tensorweave.compat.v1 as tf
from tensorweave import errors
from tensorweave.formats import protos
from tensorweave.framework import op_registry
from tensorweave.framework.graph_io import op_def_to_proto

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
TF_OP_DEF = ('name: "EagerPyFunc" input_arg { name: "input" type_list_attr: "Tin" } output_arg { name: "output" '
             'type_list_attr: "Tout" } attr { name: "token" type: "string" } attr { name: "is_async" type: "bool" '
             'default_value { b: false } } attr { name: "Tin" type: "list(type)" has_minimum: true } attr { '
             'name: "Tout" type: "list(type)" has_minimum: true } is_stateful: true')
X = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(func, inputs, Tout=tf.float32):  # noqa: N803 - TF's name
    with tf.Session() as sess:
        return sess.run(tf.py_function(func, [tf.constant(v) for v in inputs], Tout))


def _error(func, inputs, Tout=tf.float32):  # noqa: N803
    with pytest.raises(errors.OpError) as info:
        _run(func, inputs, Tout)
    return type(info.value), runtime_message(info.value).split("\nTraceback")[0]


def test_op_def_node_and_static_shapes_are_tfs():
    assert op_def_to_proto(op_registry.get("EagerPyFunc").op_def) == text_format.Parse(TF_OP_DEF, protos.OpDef())
    a, b = tf.constant(1.0), tf.constant([2])
    single = tf.py_function(lambda x, y: x, [a, b], tf.float32)
    pair = tf.py_function(lambda x, y: (x, y), [a, b], [tf.float32, tf.int32], name="pf")
    one = tf.py_function(lambda x: x, [a], (tf.float32,))
    none = tf.py_function(lambda x: None, [a], [])
    assert (single.name, single.shape.ndims, [t.name for t in pair], type(one)) == ("EagerPyFunc:0", None,
                                                                                   ["pf:0", "pf:1"], list)
    assert (none.type, none.name, none.get_attr("Tin"), none.get_attr("Tout")) == ("EagerPyFunc", "EagerPyFunc_2",
                                                                                  [tf.float32], [])
    assert single.op.get_attr("is_async") is False and single.op.get_attr("token").startswith(b"pyfunc_")
    assert single.op.op_def.is_stateful and not tf.executing_eagerly()


def test_function_gets_eager_tensors():
    seen = []

    def record(s, i, b):
        seen.extend([tf.executing_eagerly(), isinstance(s, tf.Tensor), repr(s), str(s), repr(s.numpy()), repr(i),
                     i.numpy(), type(b.numpy()).__name__, len(s), format(i, "03d"), repr(s[0]), s.shape, i.dtype,
                     s.device, int(i) + float(i), bool(b), s is s, s == i])
        for attribute in ("op", "graph", "name"):
            with pytest.raises(AttributeError, match=f"Tensor.{attribute} is undefined when eager execution is "
                                                     "enabled."):
                getattr(s, attribute)
        with pytest.raises(TypeError, match=r"Tensor is unhashable. Instead, use tensor.ref\(\) as the key."):
            hash(s)
        return tf.strings.upper(s), i * 2

    with tf.Session() as sess:
        values = sess.run(tf.py_function(record, [tf.constant([b"ab", b"c"]), tf.constant(7), tf.constant(True)],
                                         [tf.string, tf.int32]))
    assert values[0].tolist() == [b"AB", b"C"] and values[1] == 14
    assert seen == [True, True, "<tf.Tensor: shape=(2,), dtype=string, numpy=array([b'ab', b'c'], dtype=object)>",
                    "tf.Tensor([b'ab' b'c'], shape=(2,), dtype=string)", "array([b'ab', b'c'], dtype=object)",
                    "<tf.Tensor: shape=(), dtype=int32, numpy=7>", 7, "bool", 2, "007",
                    "<tf.Tensor: shape=(), dtype=string, numpy=b'ab'>", tf.TensorShape([2]), tf.int32, CPU, 14.0, True,
                    True, False]


@pytest.mark.parametrize("func, inputs, Tout, expected", [
    (lambda a: tf.matmul(a, a), [X], tf.float32, [[7, 10], [15, 22]]),
    (lambda a: tf.reduce_mean(a, axis=1, keepdims=True), [X], tf.float32, [[1.5], [3.5]]),
    (lambda a: tf.concat([a, a * 2], 0)[2:], [X], tf.float32, [[2, 4], [6, 8]]),
    (lambda a: tf.stack([a[0], a[1], a[0]]), [X], tf.float32, [[1, 2], [3, 4], [1, 2]]),
    (lambda a: tf.convert_to_tensor([a[0, 0], 5.0]), [X], tf.float32, [1, 5]),  # a list with a tensor: a Pack
    (lambda a: tf.cast(a > 2, tf.int32), [X], tf.int32, [[0, 0], [1, 1]]),
    (lambda a: tf.where(a > 2, a, -a), [X], tf.float32, [[-1, -2], [3, 4]]),
    (lambda a: a.numpy().sum() + tf.reduce_sum(a), [X], tf.float32, 20),
    (lambda a: sum(tf.reduce_sum(row) for row in a), [X], tf.float32, 10),
    (lambda a: a * 2 if tf.reduce_sum(a) > 5 else a, [X], tf.float32, [[2, 4], [6, 8]]),
    (lambda a: tf.cond(tf.reduce_sum(a) > 5, lambda: a * 2, lambda: a), [X], tf.float32, [[2, 4], [6, 8]]),
    (lambda a: tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2), [0, a])[1], [X], tf.float32,
     [[8, 16], [24, 32]]),
    (lambda s: tf.strings.join([s, s], separator="-"), [np.array([b"a", b"bc"])], tf.string, [b"a-a", b"bc-bc"]),
    (lambda s: tf.strings.length(s), [np.array([b"a", b"bc"])], tf.int32, [1, 2]),
    (lambda a: tf.argmax(a, axis=1), [X], tf.int64, [1, 1]),
    (lambda a: tf.nn.top_k(a, 1).values, [X], tf.float32, [[2], [4]]),
    (lambda a: tf.shape(tf.random.uniform([3, 2])), [X], tf.int32, [3, 2]),
    (lambda a: tf.unstack(a)[1] + tf.split(a, 2, axis=1)[0][0], [X], tf.float32, [4, 5]),
    (lambda a: (a // 2) % 3, [np.array([5, 7, 9], np.int32)], tf.int32, [2, 0, 1]),
    (lambda a: "héllo", [X], tf.string, b"h\xc3\xa9llo"),
    (lambda a: np.float64(2.5), [X], tf.float32, 2.5),
    (lambda a: 3, [X], tf.float32, 3.0),
    (lambda a: [a, a], [X], tf.float32, X),  # a list for a single Tout: zipped with it, as TF
    (lambda: 1, [], tf.int32, 1),
], ids=["matmul", "reduce", "slice", "stack", "pack", "cast", "where", "numpy", "iterate", "bool", "cond", "while",
        "join", "length", "argmax", "top_k", "random", "unstack", "int", "unicode", "np_scalar", "python",
        "zipped", "no_input"])
def test_ops_run_eagerly_in_the_function(func, inputs, Tout, expected):  # noqa: N803
    value = _run(func, inputs, Tout)
    expected = np.asarray(expected, dtype=object if Tout == tf.string else Tout.as_numpy_dtype)
    assert np.asarray(value, dtype=object if Tout == tf.string else None).dtype == expected.dtype
    np.testing.assert_array_equal(value, expected)


def test_several_outputs_and_no_output():
    with tf.Session() as sess:
        x = tf.constant(X)
        assert [np.asarray(v).tolist() for v in sess.run(tf.py_function(
            lambda a: [tf.constant("z"), 1, a[0]], [x], [tf.string, tf.int64, tf.float32]))] == [b"z", 1, [1, 2]]
        ran = []
        assert sess.run(tf.py_function(lambda a: ran.append(a.numpy().sum()), [x], [])) is None
        assert ran == [10.0]

        @tf.py_function(Tout=tf.float32)
        def decorated(a, b):
            return a * b

        np.testing.assert_array_equal(sess.run(decorated(x, 2.0)), X * 2)


def test_argument_errors():
    x = tf.constant(X)
    with pytest.raises(TypeError, match="Missing required argument: 'Tout'"):
        tf.py_function(lambda a: a, [x])
    with pytest.raises(TypeError, match="Missing argument `inp`"):
        tf.py_function(lambda a: a, Tout=tf.float32)
    with pytest.raises(TypeError, match="Don't set the `inp` argument when using tf.py_function as a decorator"):
        tf.py_function(inp=[x], Tout=tf.float32)
    with pytest.raises(ValueError, match="Expected func to be callable. Received func=3 of type <class 'int'>."):
        tf.py_function(3, [x], tf.float32)
    with pytest.raises(TypeError, match="Iterating over a symbolic `tf.Tensor` is not allowed"):
        tf.py_function(lambda a: a, x, tf.float32)


def _raise(error):
    def raise_it(a):
        raise error
    return raise_it


def test_errors_are_tfs():
    eager = f"{{{{function_node __wrapped__%s_device_{CPU}}}}} "
    assert _error(lambda a: a + tf.constant([1.0, 2.0, 3.0]), [X]) == (
        errors.UnknownError, "InvalidArgumentError: " + eager % "AddV2"
        + "Incompatible shapes: [2,2] vs. [3] [Op:AddV2] name: ")
    assert _error(lambda a: tf.constant([1, 2]) // tf.constant([0, 1]), [X], tf.int32) == (
        errors.UnknownError, "InvalidArgumentError: " + eager % "FloorDiv"
        + "Integer division by zero [Op:FloorDiv] name: ")
    assert _error(lambda a: tf.gather(a, [5]), [X]) == (
        errors.UnknownError, "InvalidArgumentError: " + eager % "GatherV2" + "indices[0] = 5 is not in [0, 2) "
        "[Op:GatherV2]")
    assert _error(lambda a: tf.reshape(a, [3]), [X]) == (
        errors.UnknownError, "InvalidArgumentError: " + eager % "Reshape" + "Input to reshape is a tensor with 4 "
        "values, but the requested shape has 3 [Op:Reshape]")
    assert _error(lambda a: a, [X], tf.int32) == (
        errors.InvalidArgumentError, "ValueError: Tensor conversion requested dtype int32 for Tensor with dtype "
        "float32: <tf.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[1., 2.],\n       [3., 4.]], "
        "dtype=float32)>")
    assert _error(lambda a: 3.5, [X], tf.int32) == (
        errors.InvalidArgumentError, "TypeError: Cannot convert 3.5 to EagerTensor of dtype int32")
    with tf.Session() as sess:
        none = tf.py_function(lambda a: None, [X], tf.float32)
        token = none.op.get_attr("token").decode()
        with pytest.raises(errors.InvalidArgumentError) as info:
            sess.run(none)
        assert runtime_message(info.value).startswith(f"{token} returns 0 values, but expects to see 1 values.")
    for error, cls, text in [(ValueError("boom"), errors.InvalidArgumentError, "ValueError: boom"),
                             (TypeError("tt"), errors.InvalidArgumentError, "TypeError: tt"),
                             (StopIteration(), errors.OutOfRangeError, "StopIteration: "),
                             (KeyError("k"), errors.UnknownError, "KeyError: 'k'"),
                             (NotImplementedError("ni"), errors.UnimplementedError, "NotImplementedError: ni"),
                             (errors.InvalidArgumentError(None, None, "custom"), errors.UnknownError,
                              "InvalidArgumentError: custom"),
                             (errors.OutOfRangeError(None, None, "end"), errors.UnknownError, "OutOfRangeError: end")]:
        assert _error(_raise(error), [X]) == (cls, text)


def test_repeated_calls_rerun_what_they_built():
    """An eager call like an earlier one reruns the kernels that one built (framework/eager.py's plans): values
    follow each call's inputs, its Python scalars (0.0 is not -0.0) and which arguments are the same tensor; a
    kernel that fails on new values still raises TF's eager error."""
    def func(a, b):
        return [a * 2.0 + b, a * a, a * b, 1.0 / (a * 0.0), 1.0 / (a * -0.0), tf.reshape(a, [4])]

    a, b = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    outputs = tf.py_function(func, [a, b], [tf.float32] * 6)
    with tf.Session() as sess:
        for scale in (1.0, 3.0):
            x, y = X * scale, X + scale
            got = sess.run(outputs, {a: x, b: y})
            for value, want in zip(got, [x * 2 + y, x * x, x * y, np.full((2, 2), np.inf), np.full((2, 2), -np.inf),
                                         x.reshape(4)]):
                np.testing.assert_array_equal(value, want)
        with pytest.raises(errors.UnknownError) as info:
            sess.run(outputs, {a: np.ones(3, np.float32), b: np.ones(3, np.float32)})
        assert runtime_message(info.value).split("\nTraceback")[0] == (
            f"InvalidArgumentError: {{{{function_node __wrapped__Reshape_device_{CPU}}}}} Input to reshape is a "
            "tensor with 3 values, but the requested shape has 4 [Op:Reshape]")


def test_gradient_through_the_function():
    x, y = tf.constant([1.0, 2.0, 3.0]), tf.constant([4.0, 5.0, 6.0])
    r = tf.py_function(lambda a, b: a * a * b + tf.sin(b), [x, y], tf.float32)
    grads = tf.gradients(r, [x, y])
    assert [(g.op.type, g.name, g.shape) for g in grads] == [
        ("EagerPyFunc", "gradients/EagerPyFunc_grad/EagerPyFunc:0", tf.TensorShape([3])),
        ("EagerPyFunc", "gradients/EagerPyFunc_grad/EagerPyFunc:1", tf.TensorShape([3]))]
    numpy_only = tf.py_function(lambda a: np.square(a.numpy()), [x], tf.float32)
    pair = tf.py_function(lambda a, b: (a * 2.0, tf.reduce_sum(a * b)), [x, y], [tf.float32, tf.float32])
    m, w = tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([[0.5], [-1.0]])

    def composite(a, b):
        h = tf.matmul(a, b)
        return tf.reduce_sum(tf.gather(tf.concat([h, h * h], 0), [0, 3, 3])) + tf.reduce_mean(tf.tanh(a))

    z = tf.py_function(composite, [m, w], tf.float32)
    branchy = tf.py_function(lambda a: tf.cond(tf.reduce_sum(a) > 0, lambda: tf.square(a), lambda: -a), [m],
                             tf.float32)
    with tf.Session() as sess:
        for _ in range(2):  # each step records its own tape
            values = sess.run(grads)
            np.testing.assert_allclose(values[0], [8, 20, 36])
            np.testing.assert_allclose(values[1], [0.3463564, 4.2836623, 9.960171], rtol=1e-6)
        assert sess.run(tf.gradients(numpy_only, x)) == [0.0]  # not differentiable: TF's scalar zeros
        np.testing.assert_allclose(sess.run(tf.gradients(pair[1], [x, y])), [[4, 5, 6], [1, 2, 3]])
        value, dm, dw = sess.run([z] + tf.gradients(z * 3.0, [m, w]))
        np.testing.assert_allclose(value, 11.930001, rtol=1e-6)
        np.testing.assert_allclose(dm, [[1.8149807, -2.947012], [-14.9926, 30.001005]], rtol=1e-5)
        np.testing.assert_allclose(dw, [[-87], [-114]])
        np.testing.assert_allclose(
            sess.run(tf.gradients(tf.reduce_sum(branchy * tf.constant([[1.0, 0.0], [2.0, 1.0]])), m)[0]),
            [[2, 0], [12, 8]])


def test_eager_tensor_in_a_graph_is_a_constant():
    kept = []
    with tf.Session() as sess:
        sess.run(tf.py_function(lambda a: kept.append(a * 2) or a, [tf.constant([1.0, 2.0])], tf.float32))
        captured = kept[0] + tf.constant(1.0)
        assert captured.op.inputs[0].op.type == "Const"
        np.testing.assert_array_equal(sess.run(captured), [3, 5])


def _checked(check):
    """A py_function body running `check(a)`: it returns `a` when the check returns None (TF's eager asserts)."""
    def body(a):
        assert check(a) is None
        return a
    return body


def test_asserts_check_at_once():
    m = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)
    np.testing.assert_array_equal(_run(_checked(lambda a: tf.debugging.assert_equal(a, a)), [m]), m)
    np.testing.assert_array_equal(_run(_checked(lambda a: tf.debugging.assert_equal(a, a + 0)), [m]), m)
    expected = [
        (lambda a: tf.debugging.assert_equal(a, a * 2), "Condition x == y did not hold.\nIndices of first 3 different "
         "values:\n[[0 0]\n [0 1]\n [1 0]]\nCorresponding x values:\n[ 1. -2.  3.]\nCorresponding y values:\n"
         "[ 2. -4.  6.]\nFirst 3 elements of x:\n[ 1. -2.  3.]\nFirst 3 elements of y:\n[ 2. -4.  6.]"),
        (lambda a: tf.debugging.assert_equal(a, a * 2, message="m", summarize=1), "m\nCondition x == y did not "
         "hold.\nIndices of first 1 different values:\n[[0 0]]\nCorresponding x values:\n[1.]\nCorresponding y "
         "values:\n[2.]\nFirst 1 elements of x:\n[1.]\nFirst 1 elements of y:\n[2.]"),
        (lambda a: tf.debugging.assert_less(a, 2.0), "Condition x < y did not hold.\nFirst 3 elements of x:\n"
         "[ 1. -2.  3.]\nFirst 1 elements of y:\n[2.]"),
        (lambda a: tf.debugging.assert_positive(a), "\nCondition x > 0 did not hold element-wise:\nx (shape=(2, 2) "
         "dtype=float32) = \n['1.0', '-2.0', '3.0', '...']"),
        (lambda a: tf.debugging.assert_equal(a, a * 2, data=["bad", a]), "bad\n['1.0', '-2.0', '3.0', '...']"),
        (lambda a: tf.debugging.assert_equal(a, a * 2, summarize=-1), "Condition x == y did not hold.\nIndices of "
         "first 4 different values:\n[[0 0]\n [0 1]\n [1 0]\n [1 1]]\nCorresponding x values:\n[ 1. -2.  3.  4.]\n"
         "Corresponding y values:\n[ 2. -4.  6.  8.]\nFirst 4 elements of x:\n[ 1. -2.  3.  4.]\nFirst 4 elements "
         "of y:\n[ 2. -4.  6.  8.]")]
    for check, message in expected:
        assert _error(_checked(check), [m]) == (errors.UnknownError, "InvalidArgumentError: " + message)
    assert _error(_checked(lambda a: tf.debugging.assert_rank(a, 1)), [m]) == (
        errors.InvalidArgumentError, "ValueError: Tensor  must have rank 1.  Received rank 2, shape (2, 2)")


def test_composite_inputs_and_outputs():
    sp = tf.SparseTensor([[0, 1], [2, 0]], [1.5, 2.5], [3, 2])
    seen = []

    def double(s, a):
        seen.append((type(s).__name__, repr(s.values), repr(s.dense_shape)))
        return tf.SparseTensor(s.indices, s.values * 2, s.dense_shape), tf.reduce_sum(s.values) + a

    out = tf.py_function(double, [sp, tf.constant([1.0, 2.0])], [tf.SparseTensorSpec([3, 2], tf.float32),
                                                                 tf.float32])
    assert (type(out[0]).__name__, out[0].shape, out[0].indices.shape.ndims, out[1].name) == (
        "SparseTensor", tf.TensorShape([3, 2]), None, "EagerPyFunc:3")
    single = tf.py_function(lambda s: s, [sp], tf.SparseTensorSpec([3, 2], tf.float32))
    not_sparse = tf.py_function(lambda s: s.values, [sp], [tf.SparseTensorSpec([3, 2], tf.float32)])
    not_dense = tf.py_function(lambda s: s, [sp], tf.float32)
    with tf.Session() as sess:
        value, total = sess.run(out)
        assert (value.indices.tolist(), value.values.tolist(), value.dense_shape.tolist()) == ([[0, 1], [2, 0]],
                                                                                             [3, 5], [3, 2])
        np.testing.assert_array_equal(total, [5, 6])
        assert sess.run(single).values.tolist() == [1.5, 2.5]
        assert seen == [("SparseTensor", "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1.5, 2.5], "
                         "dtype=float32)>", "<tf.Tensor: shape=(2,), dtype=int64, numpy=array([3, 2])>")]
        for fetch, tail in [(not_sparse, "\nIn particular, <tf.Tensor: shape=(2,), dtype=float32, numpy=array([1.5, "
                             "2.5], dtype=float32)> is not compatible with SparseTensorSpec(TensorShape([Dimension(3), "
                             "Dimension(2)]), tf.float32).\n"),
                            (not_dense, "which did not match Tout=[tf.float32].\nIn particular, SparseTensor(indices="
                             "tf.Tensor(\n[[0 1]\n [2 0]], shape=(2, 2), dtype=int64), values=tf.Tensor([1.5 2.5], "
                             "shape=(2,), dtype=float32), dense_shape=tf.Tensor([3 2], shape=(2,), dtype=int64)) is "
                             "not a Tensor.\n")]:
            with pytest.raises(errors.InvalidArgumentError) as info:
                sess.run(fetch)
            message = runtime_message(info.value).split("Traceback")[0]
            assert message.startswith("ValueError: py_function: func=") and message.endswith(tail)


def test_in_datasets_loops_and_conds():
    def upper(s):
        return s.numpy().decode().upper() + "!", tf.strings.length(s)

    ds = tf.data.Dataset.from_tensor_slices(["ab", "cde"]).map(lambda s: tf.py_function(upper, [s],
                                                                                        [tf.string, tf.int32]))
    element = tf.data.make_one_shot_iterator(ds).get_next()
    i = tf.constant(0)
    loop = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, tf.py_function(lambda v: v * 2, [a], tf.float32)),
                         [i, tf.constant(1.0)], shape_invariants=[i.shape, tf.TensorShape(None)])
    branch = tf.cond(tf.constant(True), lambda: tf.py_function(lambda: 5.0, [], tf.float32), lambda: tf.constant(1.0))
    with tf.Session() as sess:
        assert [sess.run(element), sess.run(element)] == [(b"AB!", 2), (b"CDE!", 3)]
        assert sess.run(loop) == (3, 8.0) and sess.run(branch) == 5.0


def test_gradient_through_a_nested_py_function():
    x = tf.constant([1.0, 2.0])
    y = tf.py_function(lambda a: tf.py_function(lambda b: b * b, [a], tf.float32) * 3.0 + a, [x], tf.float32)
    with tf.Session() as sess:
        value, grad = sess.run([y, tf.gradients(y, x)[0]])
    np.testing.assert_array_equal(value, [4, 14])
    np.testing.assert_array_equal(grad, [7, 13])
