"""Core TF1 programs (graph, tensors, sessions, variables) where tensorweave once differed from real TensorFlow.

Each expected literal is what TensorFlow 2.21 (`tf.compat.v1`, graph mode) produced for the same program in a
differential harness kept outside the repo. Each test starts from an empty default graph (tests/conftest.py).
"""

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf


def _error(fn):
    """(class name, message) of what `fn` raises, with the op-error node suffix dropped."""
    with pytest.raises(Exception) as info:
        fn()
    error = info.value
    return type(error).__name__, (runtime_message(error) if isinstance(error, tf.errors.OpError) else str(error)).splitlines()[0]


def test_tensor_shape_and_dimension_convert_as_shape_as_tensor():
    assert tf.convert_to_tensor(tf.TensorShape([2, 3])).name == "shape_as_tensor:0"
    d = tf.convert_to_tensor(tf.Dimension(3))
    assert (d.name, d.dtype, d.shape.as_list()) == ("shape_as_tensor_1:0", tf.int32, [])
    assert tf.convert_to_tensor(tf.Dimension(3), dtype=tf.int64).dtype == tf.int64
    assert tf.convert_to_tensor(tf.TensorShape([2, 2**33])).dtype == tf.int64
    assert _error(lambda: tf.convert_to_tensor(tf.TensorShape([2, 3]), dtype=tf.float32)) == (
        "TypeError", "Cannot convert TensorShape (2, 3) to dtype <dtype: 'float32'>. Allowed dtypes are tf.int32 "
        "and tf.int64.")
    assert _error(lambda: tf.convert_to_tensor(tf.TensorShape([2, 2**33]), dtype=tf.int32)) == (
        "ValueError", "Cannot convert TensorShape (2, 8589934592) to dtype int32; a dimension is too large. "
        "Consider using tf.int64.")
    assert _error(lambda: tf.convert_to_tensor(tf.Dimension(None))) == (
        "ValueError", "Cannot convert unknown Dimension ? to a Tensor.")
    assert _error(lambda: tf.convert_to_tensor(tf.Dimension(3), dtype=tf.float32)) == (
        "TypeError", "Cannot convert Dimension 3 to dtype <dtype: 'float32'>. Allowed dtypes are tf.int32 and "
        "tf.int64.")
    with tf.Session() as s:
        assert s.run(tf.zeros(tf.TensorShape([2, 2]))).shape == (2, 2)


def test_variable_slice_assign():
    v = tf.Variable(np.arange(12.0, dtype=np.float32).reshape(3, 4), name="v")
    a = v[0].assign([9.0, 9, 9, 9])
    b = v[1:, ::2].assign([[7.0, 7], [8, 8]])
    c = v[..., -1].assign(tf.constant([5.0, 5, 5]), name="named")
    d = v[tf.newaxis, 0, 1:3].assign([[1.0, 2]])
    assert [t.name for t in (a, b, c, d)] == [
        "strided_slice/_assign:0", "strided_slice_1/_assign:0", "named:0", "strided_slice_3/_assign:0"]
    assert (a.dtype.name, a.shape.as_list(), a.op.type) == ("float32_ref", [3, 4], "StridedSliceAssign")
    assert [t.name for t in a.op.inputs] == ["v:0", "strided_slice/stack:0", "strided_slice/stack_1:0",
                                             "strided_slice/stack_2:0", "strided_slice/_assign/value:0"]
    assert [b.op.get_attr(k) for k in ("begin_mask", "end_mask", "shrink_axis_mask", "Index")] == [2, 3, 0, tf.int32]
    assert not hasattr(tf.constant([1])[0], "assign")
    p = tf.placeholder(tf.float32)
    one_row, two_rows = v[0].assign(p), v[0:2].assign(p)
    w = tf.Variable([1, 2, 3], name="w")
    u = tf.Variable(np.zeros(3, np.float32), name="u")
    with tf.Session() as s:
        s.run([v.initializer, w.initializer])
        s.run([a, b, c])
        np.testing.assert_array_equal(s.run(d), [[9, 1, 2, 5], [7, 5, 7, 5], [8, 9, 8, 5]])
        assert _error(lambda: s.run(one_row, {p: [1.0, 2.0]})) == (
            "InvalidArgumentError", "Cannot broadcast input shape [2] into final shape [4]")
        np.testing.assert_array_equal(s.run(two_rows, {p: [1.0, 2, 3, 4]})[:2], [[1, 2, 3, 4]] * 2)
        np.testing.assert_array_equal(s.run(one_row, {p: 3.0})[0], [3, 3, 3, 3])
        np.testing.assert_array_equal(s.run(w[1:].assign([7, 8])), [1, 7, 8])
        assert _error(lambda: s.run(u[0].assign(1.0))) == (
            "FailedPreconditionError", "Attempting to use uninitialized value u")


def test_identity_of_a_variable_reads_its_snapshot():
    v = tf.Variable([1.0], name="v")
    y = tf.identity(v)
    assert (y.op.inputs[0].name, y.dtype) == ("v/read:0", tf.float32)


def test_variable_initial_value_dtype_error_names_the_argument():
    assert _error(lambda: tf.Variable(tf.constant([1.5]), dtype=tf.int32)) == (
        "ValueError", "initial_value: Tensor conversion requested dtype int32 for Tensor with dtype float32: "
        "<tf.Tensor 'Const:0' shape=(1,) dtype=float32>")


def test_assert_variables_initialized_and_initialize_variables():
    assert tf.assert_variables_initialized() is None
    v = tf.Variable([1.0], name="v")
    w = tf.Variable(2, name="w")
    one, both = tf.assert_variables_initialized([v]), tf.assert_variables_initialized()
    assert (one.name, one.op.type, both.name) == ("Rank:0", "Rank", "stack:0")
    assert [t.name for t in one.op.inputs] == ["v/read:0"]
    assert one.op.colocation_groups() == [b"loc:@v"]
    with tf.Session() as s:
        assert _error(lambda: s.run(both))[0] == "FailedPreconditionError"
        init = tf.initialize_variables([v, w])
        assert (init.name, init.type) == ("init", "NoOp")
        s.run(init)
        assert s.run([one, both])[1].tolist() == [1, 0]


def test_unknown_session_target_is_not_found():
    assert _error(lambda: tf.Session("foo://bar")) == (
        "NotFoundError", 'No session factory registered for the given session options: {target: "foo://bar"} '
        "Registered factories are {GRPC_SESSION, DIRECT_SESSION}.")


def test_fill_negative_dimension_at_run_time():
    dims = tf.placeholder(tf.int32, name="fd")
    with tf.Session() as s:
        assert _error(lambda: s.run(tf.fill(dims, 1), {dims: [2, -1]})) == (
            "InvalidArgumentError", "Dimension -1 must be >= 0")


def test_random_uniform_invalid_dtype():
    assert _error(lambda: tf.random_uniform([2], dtype=tf.string)) == (
        "ValueError", "Argument `dtype` got invalid value <dtype: 'string'>. Accepted dtypes are (tf.float16, "
        "tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64).")


def test_shape_n():
    p = tf.placeholder(tf.float32, [None, 3])
    q = tf.placeholder(tf.float32)
    r = tf.shape_n([p, tf.zeros([2]), q], name="sn")
    assert [(t.name, t.shape.as_list() if t.shape.ndims is not None else None) for t in r] == [
        ("sn:0", [2]), ("sn:1", [1]), ("sn:2", [None])]
    assert [r[0].op.type, r[0].op.get_attr("N"), r[0].op.get_attr("T")] == ["ShapeN", 3, tf.float32]
    assert tf.shape_n([p], out_type=tf.int64)[0].name == "ShapeN:0"
    assert _error(lambda: tf.shape_n([])) == (
        "ValueError", "List argument 'input' to 'ShapeN' Op with length 0 shorter than minimum length 1.")
    with tf.Session() as s:
        assert [x.tolist() for x in s.run(r, {p: [[1, 2, 3]], q: 1.0})] == [[1, 3], [2], []]


def test_prevent_fetching_and_collections():
    x = tf.placeholder(tf.float32, name="x")
    z = tf.add(x, 1.0, name="z")
    g = tf.get_default_graph()
    assert g.collections == []
    tf.add_to_collection("c", 1)
    assert g.collections == ["c"]
    g.prevent_fetching(z.op)
    with tf.Session() as s:
        for fetch in (z, [z]):
            assert _error(lambda fetch=fetch: s.run(fetch, {x: 1.0})) == (
                "InaccessibleTensorError", "Operation z has been marked as not fetchable. Typically this happens "
                "when it is defined in another function or code block. Use return values, explicit Python locals "
                "or TensorFlow collections to access it.")


@pytest.mark.parametrize("build, suffix", [
    (lambda: tf.range(1.5, 0.5, 0.5),
     "[], [], [] and with computed input tensors: input[0] = <1.5>, input[1] = <0.5>, input[2] = <0.5>."),
    (lambda: tf.range(1.0, 0.0, 1.0),
     "[], [], [] and with computed input tensors: input[0] = <1>, input[1] = <0>, input[2] = <1>."),
    (lambda: tf.reshape(np.zeros(6), [4, -1]), "[6], [2] and with input tensors computed as partial shapes: "
     "input[1] = [4,?]."),
    (lambda: tf.reshape(np.zeros(6), tf.stack([4, tf.placeholder(tf.int32, [])])),
     "[6], [2] and with input tensors computed as partial shapes: input[1] = [4,?]."),
    (lambda: tf.pad(np.zeros((2, 3)), [[-1, 1], [0, 0]]),
     "[2,3], [2,2] and with computed input tensors: input[1] = <[-1 1][0 0]>."),
    (lambda: tf.pad(np.zeros((2, 2, 2)), np.zeros((3, 2, 2), np.int32)), "[2,2,2], [3,2,2]."),
    (lambda: tf.tile(np.zeros((2, 2)), [1, 2, 3]), "[2,2], [3]."),  # failed before any value was read
    (lambda: tf.concat([np.zeros((2, 2)), np.zeros((3, 3))], 1),
     "[2,2], [3,3], [] and with computed input tensors: input[2] = <1>."),
    (lambda: tf.transpose(np.zeros((2, 2)), [0, 2]), "[2,2], [2] and with computed input tensors: input[1] = <0 2>."),
    (lambda: tf.broadcast_to(np.zeros((2, 3)), [3, 3]),
     "[2,3], [2] and with input tensors computed as partial shapes: input[1] = [3,3]."),
    (lambda: tf.one_hot([1], -2), "[1], [], [], [] and with computed input tensors: input[1] = <-2>."),
    (lambda: tf.squeeze(np.zeros((2, 2)), [0]), "[2,2]."),
])
def test_shape_errors_list_the_input_values_shape_inference_computed(build, suffix):
    with pytest.raises(ValueError) as info:
        build()
    assert str(info.value).split(" with input shapes: ")[1] == suffix
