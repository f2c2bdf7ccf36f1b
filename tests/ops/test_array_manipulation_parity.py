"""Divergences from TensorFlow in array and manipulation ops (scatter, gather, slicing, padding, ...) found by
running programs side by side with real TensorFlow 2.21 (`tf.compat.v1`, graph mode): the expected values,
names and messages are its literals."""

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def _scatter_message(op, indices, updates, out_shape):
    with tf.Graph().as_default():
        i, u = tf.placeholder(tf.int32), tf.placeholder(tf.float32)
        if op == "scatter_nd":
            s = tf.placeholder(tf.int32)
            out, feed = tf.scatter_nd(i, u, s), {s: out_shape}
        else:
            t = tf.placeholder(tf.float32)
            out, feed = tf.tensor_scatter_nd_update(t, i, u), {t: np.zeros(out_shape, np.float32)}
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            _run(out, {i: indices, u: updates, **feed})
        return runtime_message(info.value).split("\n")[0]


@pytest.mark.parametrize("indices, updates, out_shape, scatter_nd, tensor_scatter", [
    # a 1-D indices is one depth-1 index per element in TF's shared validation: it always fails
    ([1], [5.0, 6.0], [3, 2], *[r"Dimensions [0,1) of indices[shape=[1]] = 1 must match dimensions [0,1) of "
                                r"updates[shape=[2]] = 2"] * 2),
    ([1], [5.0], [3, 1], *[r"Dimensions [1,2) of input[shape=[3,1]] must match dimensions [1,1) of "
                           r"updates[shape=[1]]"] * 2),
    ([1], [[5.0, 6.0]], [3, 2], "Dimensions [1,2) of input[shape=[3,2]] must match dimensions [0,2) of "
                                "updates[shape=[1,2]]",
     "Inner dimensions of output shape must match inner dimensions of updates shape. Output: [3,2] updates: [1,2]"),
    ([[1]], [5.0, 6.0], [3, 2], "Dimensions [0,1) of indices[shape=[1,1]] must match dimensions [0,1) of "
                                "updates[shape=[2]]",
     "Outer dimensions of indices and update must match. Indices shape: [1,1], updates shape:[2]"),
    ([[1, 0, 0]], [5.0], [3, 2], "Dimensions [3,2) of input[shape=[3,2]] must match dimensions [1,1) of "
                                 "updates[shape=[1]]",
     "Inner dimensions of output shape must match inner dimensions of updates shape. Output: [3,2] updates: [1]"),
    ([[[1], [2]]], [[5.0, 6.0]], [3, 2], "Dimensions [1,2) of input[shape=[3,2]] must match dimensions [2,2) of "
                                         "updates[shape=[1,2]]",
     "Inner dimensions of output shape must match inner dimensions of updates shape. Output: [3,2] updates: [1,2]"),
    ([[1]], [1.0], [3, 0], "Dimensions [1,2) of input[shape=[3,0]] must match dimensions [1,1) of "
                           "updates[shape=[1]]", "Indices and updates specified for empty output shape"),
    ([[1]], [1.0], [0], "Indices and updates specified for empty output.  indices shape: [1,1]",
     "Indices and updates specified for empty output shape"),
    ([[1]], [1.0], [], "Indices and updates specified for empty output shape",
     "Inner dimensions of output shape must match inner dimensions of updates shape. Output: [] updates: [1]"),
    ([[1]], 5.0, [3], *["Updates shape must have rank at least one. Found:[]"] * 2),
    ([[[1], [5]]], [[1.0, 2.0]], [3], *["indices[0,1] = [5] does not index into shape [3]"] * 2),
])
def test_scatter_nd_and_tensor_scatter_kernel_messages(indices, updates, out_shape, scatter_nd, tensor_scatter):
    assert _scatter_message("scatter_nd", indices, updates, out_shape) == scatter_nd
    assert _scatter_message("tensor_scatter", indices, updates, out_shape) == tensor_scatter


def test_scatter_nd_shape_must_be_a_vector_and_not_negative():
    assert _scatter_message("scatter_nd", [[1]], [1.0], [[3]]) == "Shape must be a vector"
    assert _scatter_message("scatter_nd", [[1]], [1.0], [-1]) == "Dimension -1 must be >= 0"


def test_tensor_scatter_max_gradient_names_and_tie_split():
    x = tf.constant([[1.0, 5.0], [3.0, 3.0], [2.0, 7.0]])
    u = tf.constant([[4.0, 5.0], [3.0, 1.0]])
    y = tf.tensor_scatter_nd_max(x, [[0], [1]], u)
    gx, gu = tf.gradients(y * tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), [x, u])
    assert (gx.name, gu.name) == ("gradients/TensorScatterMax_grad/truediv:0", "gradients/TensorScatterMax_grad/mul_1:0")
    gx, gu = _run([gx, gu])
    assert gx.tolist() == [[0.0, 1.0], [1.5, 4.0], [5.0, 6.0]]
    assert gu.tolist() == [[1.0, 1.0], [1.5, 0.0]]


def test_reverse_sequence_negative_dims_fail_as_tf():
    x = tf.constant(np.zeros([2, 3, 4], np.float32))
    with pytest.raises(ValueError, match=r"^batch_dim must be >=0, got -1 for '\{\{node ReverseSequence\}\}"):
        tf.reverse_sequence(x, [1, 3, 2, 4], seq_axis=1, batch_axis=-1)
    p = tf.placeholder(tf.float32)
    for seq_axis, batch_axis, message in ((-1, 0, "Invalid seq_dim -1"), (-1, -2, "Invalid batch_dim -2"),
                                          (5, -1, "Invalid batch_dim -1"), (5, 5, "batch_dim == seq_dim == 5"),
                                          (5, 0, r"seq_dim must be < input rank\( 5 vs. 3\)")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            _run(tf.reverse_sequence(p, [1, 3], seq_axis=seq_axis, batch_axis=batch_axis), {p: np.zeros([2, 3, 4])})


def test_broadcast_to_shape_tensor_checks_as_tf_make_shape():
    x = tf.constant([[1.0], [2.0]])
    p = tf.placeholder(tf.int32)
    for shape, message in (([-1, 3], "Dimension -1 must be >= 0"),
                           ([[2, 2]], r"shape must be a vector of \{int32,int64\}, got shape \[1,2\]"),
                           ([3, 3], r"Incompatible shapes: \[2,1\] vs. \[3,3\]")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            _run(tf.broadcast_to(x, p), {p: shape})


def test_size_and_rank_of_a_sparse_tensor_read_its_dense_shape():
    sp = tf.SparseTensor([[0, 0]], [1.0], [2, 3])
    size, size64, rank = tf.size(sp), tf.size(sp, out_type=tf.int64), tf.rank(sp)
    assert (size.name, size.op.type, size.dtype, size64.dtype) == ("Size:0", "Prod", tf.int32, tf.int64)
    assert (rank.name, rank.op.type, rank.dtype) == ("Rank:0", "Size", tf.int32)
    assert _run([size, size64, rank]) == [6, 6, 2]
    value = tf.rank(tf.SparseTensorValue([[0, 0]], [1.0], [2, 3]))
    assert [t.name for t in value.op.inputs] == ["Rank_1/input:0"]
    assert [t.name for t in tf.shape(tf.SparseTensorValue([[0, 0]], [1.0], [2, 3])).op.inputs] == ["Shape/Cast/x:0"]


def test_list_input_errors_name_the_op_as_tf():
    x = tf.constant([[1.0, 2.0]])
    with pytest.raises(TypeError, match=r"^Expected list for 'input' argument to 'IdentityN' Op, not "
                                        r"Tensor\(\"Const:0\", shape=\(1, 2\), dtype=float32\)\.$"):
        tf.identity_n(x)
    with pytest.raises(TypeError, match=r"^Expected list for 'values' argument to 'concat_v2' Op, not "
                                        r"<tf.Tensor 'Const:0' shape=\(1, 2\) dtype=float32>\.$"):
        tf.raw_ops.ConcatV2(values=x, axis=0)


def test_list_length_mismatch_is_the_generated_wrappers_error_and_takes_no_name():
    with pytest.raises(ValueError, match=r"^List argument 'data' to 'dynamic_stitch' Op with length 2 must match "
                                         r"length 1 of argument 'indices'\.$"):
        tf.dynamic_stitch([[0, 1]], [[1.0], [2.0]])
    with pytest.raises(TypeError, match="^Expected list for 'data' argument to 'dynamic_stitch' Op"):
        tf.raw_ops.DynamicStitch(indices=[[0, 1]], data=tf.constant([1.0, 2.0]))
    assert tf.dynamic_stitch([[0, 1]], [[1.0, 2.0]]).name == "DynamicStitch:0"


def test_searchsorted_of_a_scalar_fails_in_strided_slice_of_the_shape_constant():
    """TF's searchsorted reads shapes with shape_internal: a known shape is a Const Shape/shape_as_tensor."""
    out = tf.searchsorted(tf.constant([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]), tf.constant([[3.0, 0.0], [7.0, 4.0]]))
    assert [t.name for t in out.op.inputs] == ["LowerBound:0", "Shape_2/shape_as_tensor:0"]
    assert _run(out).tolist() == [[1, 0], [3, 1]]
    with pytest.raises(ValueError, match=r"slice index -1 of dimension 0 out of bounds. for '\{\{node strided_slice_3\}\} "
                                         r"= StridedSlice.*\(Shape_4/shape_as_tensor, "):
        tf.searchsorted(tf.constant([1.0, 3.0, 5.0]), tf.constant(3.0))


@pytest.mark.parametrize("source, target, static", [
    ([0, None], [3, -1], [3, 0]),  # a zero dim makes the input's size 0 whatever the unknown dims
    ([None, 0], [-1, 3], [0, 3]),
    ([0, None], [-1, 5], [0, 5]),
    ([0, None], [0, -1], [0, None]),
    ([None, 0], [-1], [0]),
    ([2, 3, None], [6, 7], [6, 7]),
    ([None, None], [0, -1], [0, None]),
])
def test_reshape_static_shape_with_zero_sized_dims(source, target, static):
    assert tf.reshape(tf.placeholder(tf.float32, source), target).shape.as_list() == static


def test_reshape_static_size_checks_against_a_zero_sized_partial_input():
    with pytest.raises(ValueError, match=r"^Cannot reshape a tensor with 0 elements to shape \[3,5\] \(15 elements\)"):
        tf.reshape(tf.placeholder(tf.float32, [0, None]), [3, 5])
    with pytest.raises(ValueError, match=r"^Cannot reshape a tensor with 6 elements to shape \[\?,0\] \(0 elements\)"):
        tf.reshape(tf.placeholder(tf.float32, [2, 3]), [-1, 0])


def test_split_v_with_an_unknown_axis_and_known_sizes_splits_the_last_dim_statically():
    """TF's SplitV shape function reads the unknown axis's value, -1, as an axis."""
    axis = tf.placeholder(tf.int32)
    assert [t.shape.as_list() for t in tf.split(tf.placeholder(tf.float32, [4, 5]), [1, -1], axis=axis)] == [
        [4, 1], [4, 4]]
    assert [t.shape.as_list() for t in tf.split(tf.placeholder(tf.float32, [4, 4]), 2, axis=axis)] == [
        [None, None], [None, None]]
    with pytest.raises(ValueError, match=r"^can't split axis of size 5 into pieces of size \[1,3\]"):
        tf.split(tf.placeholder(tf.float32, [4, 5]), [1, 3], axis=axis)


def test_resource_scatter_div_rejects_zero_updates_of_any_dtype_before_indices():
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), use_resource=True)
    with tf.Session() as sess:
        sess.run(v.initializer)
        for indices, updates in (([1], [[0.0, 1.0, 2.0]]), ([9], [[-0.0, 1.0, 2.0]]), ([1], 0.0)):
            with pytest.raises(tf.errors.InvalidArgumentError, match="updates must not contain 0"):
                sess.run(tf.scatter_div(v, indices, updates))
        assert np.isnan(sess.run(tf.scatter_div(v, [1], np.nan))[1]).all()


def test_diag_part_and_set_diag_check_diagonal_indices_against_the_matrix():
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    with pytest.raises(ValueError, match=r"^lower_diag_index is out of bound\. for '\{\{node diag_part\}\}"):
        tf.linalg.diag_part(x, k=5)
    with pytest.raises(ValueError, match=r"^upper_diag_index is out of bound\. for '\{\{node set_diag\}\}"):
        tf.linalg.set_diag(x, [[1.0, 2.0, 3.0]] * 2, k=(0, 4))
    assert tf.linalg.diag_part(tf.zeros([0, 3]), k=0).shape.as_list() == [0]
    k = tf.placeholder(tf.int32)
    for build, value, message in (
            (tf.linalg.diag_part(x, k=k), 5, "lower_diag_index is out of bound: 5. It must be between -3 and 4"),
            (tf.linalg.diag_part(x, k=k), [0, 4], "upper_diag_index is out of bound: 4 It must be between -3 and 4"),
            (tf.linalg.diag_part(x, k=k), [2, -5], "upper_diag_index is out of bound: -5 It must be between -3 and 4"),
            (tf.linalg.set_diag(x, [[1.0]], k=k), -3, "lower_diag_index is out of bound: -3 It must be between -3 and 4"),
            (tf.linalg.diag_part(x, k=k), [2, 1], "lower_diag_index must not be larger than upper_diag_index: 2 > 1")):
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            _run(build, {k: value})
        assert runtime_message(info.value).split("\n")[0] == message


def test_diag_gradients_use_the_public_wrappers_as_tf():
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    names = [tf.gradients(f(x) * 2, x)[0].name for f in (lambda a: tf.linalg.diag_part(a, k=(-1, 1)),
                                                         lambda a: tf.linalg.set_diag(a, [1.0, 2.0, 3.0]),
                                                         lambda a: tf.linalg.diag(a))]
    assert names == ["gradients/diag_part_grad/diag:0", "gradients_1/set_diag_grad/set_diag:0",
                     "gradients_2/diag_grad/diag_part:0"]
    gx, gd = tf.gradients(tf.raw_ops.MatrixSetDiag(input=x, diagonal=[1.0, 2.0, 3.0]) * 2.0,
                          [x, tf.get_default_graph().get_tensor_by_name("MatrixSetDiag/diagonal:0")])
    assert (gx.name, gd.name) == ("gradients_3/MatrixSetDiag_grad/set_diag:0", "gradients_3/MatrixSetDiag_grad/diag_part:0")
    assert _run(gd).tolist() == [2.0, 2.0, 2.0]


def test_sort_reads_k_from_the_shape_first_and_swaps_axes_as_tf():
    with pytest.raises(ValueError, match=r"^slice index 2 of dimension 0 out of bounds. for "
                                         r"'\{\{node sort/strided_slice\}\}"):
        tf.sort([[3, 1], [0, 2]], axis=2)
    out = tf.sort(tf.constant([[3, 1], [0, 2]], tf.uint8), axis=-2, name="s")
    graph = tf.get_default_graph()
    assert graph.get_tensor_by_name("s/transposition:0").dtype == tf.int64
    assert [t.name for t in graph.get_operation_by_name("s/sub").inputs] == ["s/sub/x:0", "Const:0"]
    assert _run(out).tolist() == [[0, 1], [3, 2]]
    values = tf.placeholder(tf.float32)
    assert _run(tf.sort(values, axis=0), {values: [[3.0, 1.0], [0.0, 2.0]]}).tolist() == [[0.0, 1.0], [3.0, 2.0]]


def test_gather_nd_with_batch_dims_builds_tf_batch_gather_nd():
    params = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    out = tf.gather_nd(params, [[1], [0]], batch_dims=1)
    assert (out.name, out.op.type) == ("BatchGatherND/Reshape_3:0", "Reshape")
    graph = tf.get_default_graph()
    assert [t.name for t in graph.get_operation_by_name("BatchGatherND/GatherNd").inputs] == [
        "Const:0", "BatchGatherND/concat_3:0"]  # params is not reshaped
    assert graph.get_operation_by_name("BatchGatherND/meshgrid/ones").type == "Fill"
    grad = tf.gradients(out, params)[0]
    assert grad.name == "gradients/BatchGatherND/GatherNd_grad/ScatterNd:0"
    assert _run(out).tolist() == [[4.0, 5.0, 6.0, 7.0], [12.0, 13.0, 14.0, 15.0]]
    assert _run(grad)[1, 0].tolist() == [1.0] * 4
    with pytest.raises(ValueError, match=r"^Cannot infer argument `num` from shape \(\?,\)"):
        tf.gather_nd(tf.placeholder(tf.float32), [[1], [0]], batch_dims=1)


def test_batch_gather_is_tf_flattened_gather():
    """TF's deprecated tf.batch_gather offsets the indices into the flattened params: its errors name the flat
    index, its output is a Reshape."""
    v = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    out = tf.batch_gather(v, [[0, 2], [1, 1]])
    assert (out.name, out.shape.as_list()) == ("BatchGather/Reshape_3:0", [2, 2])
    assert _run(out).tolist() == [[0.0, 2.0], [4.0, 4.0]]
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(tf.batch_gather(v, [[0], [5]]))
    assert runtime_message(info.value).startswith("indices[1] = 8 is not in [0, 6)")
    assert tf.batch_gather(tf.placeholder(tf.float32, [None, 5]), [[1, 0]]).shape.as_list() == [1, 2]


def test_scatter_shape_functions_skip_scalar_updates_but_scatter_nd_needs_a_vector():
    x = tf.constant(np.zeros((3, 2), np.float32))
    assert tf.tensor_scatter_nd_update(x, [[1]], 5.0).shape.as_list() == [3, 2]
    with pytest.raises(ValueError, match=r"^Shape must be at least rank 1 but is rank 0 for '\{\{node ScatterNd\}\}"):
        tf.scatter_nd([[1]], 5.0, [3, 2])


def test_parallel_concat_needs_fully_defined_shapes():
    with pytest.raises(ValueError, match=r"^shape attr must be fully defined\. for "
                                         r"'\{\{node parallel_stack/ParallelConcat\}\}"):
        tf.parallel_stack([tf.placeholder(tf.float32, [None])])
    with pytest.raises(ValueError, match=r"^Size of first dimension must be 1\. for '\{\{node ParallelConcat\}\}"):
        tf.raw_ops.ParallelConcat(values=[tf.zeros([1, 2]), tf.zeros([2, 2])], shape=[3, 2])
    assert tf.parallel_stack([tf.zeros([2]), tf.ones([2])]).shape.as_list() == [2, 2]
