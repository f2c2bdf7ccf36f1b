"""Whole TF1 programs, second sweep: tensor pipelines, dtype promotion, side-effect ordering, strings.

Each test is a small program a user keeps; the expected literals were recorded from real TensorFlow.
"""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_tuple_keeps_a_ref_as_a_ref_and_converts_variables_and_python_values():
    with tf.Graph().as_default():
        v = tf.Variable(1, name="v")
        bumped = tf.assign_add(v, 2)
        gated = tf.tuple([bumped, v, [5, 6], None])
        assert [(t.name, t.op.type, t.dtype.name) for t in gated[:3]] == [
            ("tuple/control_dependency:0", "RefIdentity", "int32_ref"),
            ("tuple/control_dependency_1:0", "Identity", "int32"),
            ("tuple/control_dependency_2:0", "Identity", "int32")]
        assert gated[3] is None
        assert [t.name for t in gated[1].op.inputs] == ["v/read:0"]
        assert [t.name for t in gated[2].op.inputs] == ["tuple/Const:0"]
        overwrite = tf.assign(gated[0], 7)  # the gated ref still names the variable
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert [np.asarray(x).tolist() for x in sess.run(gated[:3])] == [3, 3, [5, 6]]
            assert sess.run(overwrite) == 7
            assert sess.run(v) == 7


def test_tuple_gates_on_each_op_once_in_creation_order():
    with tf.Graph().as_default():
        a = tf.constant(1, name="a")
        b = tf.constant(2, name="b")
        done = tf.no_op(name="n")
        gated = tf.tuple([b, a, b], control_inputs=[done, a])
        gate = gated[0].op.control_inputs[0]
        assert [op.name for op in gate.control_inputs] == ["a", "b", "n"]
        with pytest.raises(ValueError, match="^'tensors' must have at least one Tensor. Received: \\[None\\].$"):
            tf.tuple([None])


def test_tuple_and_group_keep_indexed_slices_and_sparse_tensors_whole():
    with tf.Graph().as_default():
        emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 10, name="emb")
        e = tf.nn.embedding_lookup(emb, [0, 2, 2])
        g = tf.gradients(tf.reduce_sum(e * e), emb)[0]
        sp = tf.SparseTensor([[0, 1]], [2.0], [2, 3])
        gated = tf.tuple([g, sp, tf.constant(1.0)])
        assert [type(t).__name__ for t in gated] == ["IndexedSlices", "SparseTensor", "SymbolicTensor"]
        assert gated[0].values.name == "tuple/control_dependency:0"
        assert gated[0].indices is g.indices and gated[0].dense_shape is g.dense_shape
        assert [gated[1].indices.name, gated[1].values.name, gated[1].dense_shape.name] == [
            "tuple/control_dependency_1/Identity:0", "tuple/control_dependency_1/Identity_1:0",
            "tuple/control_dependency_1/Identity_2:0"]
        assert [op.name for op in tf.group(sp, g, name="gg").control_inputs] == [
            "SparseTensor/indices", "SparseTensor/values", "SparseTensor/dense_shape",
            "gradients/embedding_lookup_grad/Reshape", "gradients/embedding_lookup_grad/Reshape_1",
            "gradients/embedding_lookup_grad/Shape"]
        with tf.Session() as sess:
            sess.run(emb.initializer)
            slices, sparse = sess.run(gated[:2])
        np.testing.assert_allclose(slices.values, [[0, 0.2, 0.4], [1.2, 1.4, 1.6], [1.2, 1.4, 1.6]], rtol=1e-6)
        assert slices.indices.tolist() == [0, 2, 2] and slices.dense_shape.tolist() == [4, 3]
        assert sparse.indices.tolist() == [[0, 1]] and sparse.values.tolist() == [2.0]


def test_fetching_a_fed_string_tensor_returns_the_feed_unchecked_but_a_computed_one_checks_it():
    with tf.Graph().as_default():
        words = tf.placeholder(tf.string, [None])
        with tf.Session() as sess:
            fed = sess.run(words, {words: [1.5]})
            assert fed.dtype == object and fed.tolist() == [1.5]
            assert sess.run(words, {words: [b"a", 1]}).tolist() == [b"a", 1]
            with pytest.raises(tf.errors.InternalError, match="Unsupported object type float"):
                sess.run(tf.identity(words), {words: [1.5]})
            both = sess.run([words, tf.size(words)], {words: ["x", "y"]})
            assert both[0].tolist() == ["x", "y"] and both[1] == 2


def test_pad_with_paddings_known_in_part_keeps_the_dimensions_it_can():
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int32, [], name="n")
        x = tf.placeholder(tf.float32, [None, 3, None])
        matrix = tf.placeholder(tf.float32, [2, 3])
        assert tf.pad(x, [[n, 1], [0, 0], [0, 0]]).shape.as_list() == [None, 3, None]
        assert tf.pad(x, [[0, 0], [n, 1], [2, 2]]).shape.as_list() == [None, None, None]
        assert tf.pad(x, tf.stack([[n, 1], [0, 0], [1, 1]])).shape.as_list() == [None, 3, None]
        assert tf.pad(x, [[n, 1], [0, 0], [0, 0]], mode="reflect").shape.as_list() == [None, 3, None]
        assert tf.pad(x, [[n, 1], [0, 0], [0, 0]], constant_values=3.0).shape.as_list() == [None, 3, None]
        assert tf.pad(x, np.array([[1, 1], [0, 0], [0, 0]])).shape.as_list() == [None, 3, None]
        assert tf.pad(matrix, [[n, 1], [0, 0]]).shape.as_list() == [None, 3]
        assert tf.pad(x, tf.concat([[[n, 1]], [[0, 0], [1, 1]]], 0)).shape.as_list() == [None, None, None]
        padded = tf.pad(matrix, [[n, 1], [2, 0]])
        with tf.Session() as sess:
            assert sess.run(padded, {n: 1, matrix: np.ones([2, 3])}).shape == (4, 5)


def test_strided_slice_with_too_many_indices_reports_only_the_strides_as_computed():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3, None], name="x")
        with pytest.raises(ValueError) as info:
            x[0, 0, 0, 0]  # noqa: B018 - the slice's shape function raises
    assert str(info.value) == (
        "Index out of range using input dim 3; input has only 3 dims for '{{node strided_slice}} = "
        "StridedSlice[Index=DT_INT32, T=DT_FLOAT, begin_mask=0, ellipsis_mask=0, end_mask=0, new_axis_mask=0, "
        "shrink_axis_mask=15](x, strided_slice/stack, strided_slice/stack_1, strided_slice/stack_2)' with input "
        "shapes: [?,3,?], [4], [4], [4] and with computed input tensors: input[3] = <1 1 1 1>.")


def test_variable_with_a_partly_known_shape_fails_every_step_that_runs_it():
    with tf.Graph().as_default():
        unknown_rank = tf.Variable([1.0, 2.0], name="s2", shape=tf.TensorShape(None))
        partial = tf.Variable([[1.0, 2.0]], name="s4", shape=[1, None])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Assign requires shapes of both tensors to match. lhs shape= \[\] rhs shape= \[2\]"):
                sess.run(unknown_rank.initializer)
            for fetch in (partial.initializer, partial, tf.is_variable_initialized(partial)):
                with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shape \[1,\?\] is not fully defined"):
                    sess.run(fetch)
