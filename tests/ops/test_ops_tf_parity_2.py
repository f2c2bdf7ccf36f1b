"""More divergences from TensorFlow found by running the same TF1 programs on both: values, shapes, node
names and error messages are literals recorded from real TensorFlow 2.21 (`tf.compat.v1`)."""

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


# -- SplitV, ArgMax, UnsortedSegmentSum: shape functions ----------------------------------------------

def test_split_v_size_splits_must_match_num():
    with pytest.raises(ValueError, match="^Length of size_splits should be equal to num_outputs"):
        tf.split(tf.ones([4]), [1, 3], num=3)


def test_argmax_of_a_vector_is_a_scalar_whatever_the_axis():
    """TF's shape function gives a vector a scalar result without checking the axis; the kernel checks it."""
    t = tf.argmax(tf.constant([1, 3]), axis=1)
    assert t.shape.as_list() == []
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected dimension in the range \[-1, 1\)"):
        _run(t)


def test_unsorted_segment_ids_shape_must_prefix_data_shape():
    with pytest.raises(ValueError, match="^Dimensions must be equal, but are 2 and 3"):
        tf.unsorted_segment_sum([[1, 2], [3, 4]], [0, 1, 1], 2)
    with pytest.raises(ValueError, match="^Shape must be at least rank 2 but is rank 1"):
        tf.unsorted_segment_max([1, 2], [[0, 1]], 2)
    ids = tf.placeholder_with_default([0, 1, 1], [None])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"data.shape = \[2,2\] does not start with segment_ids.shape = \[3\]"):
        _run(tf.unsorted_segment_sum([[1, 2], [3, 4]], ids, 2))


# -- Images -----------------------------------------------------------------------------------------

def test_per_image_standardization_casts_integers_without_rescaling():
    image = np.arange(24, dtype=np.uint8).reshape(2, 3, 4) * 2
    out = tf.image.per_image_standardization(image)
    assert out.dtype == tf.float32
    values = _run(out)
    np.testing.assert_allclose(values[0, 0, :3], [-1.6613247, -1.5168617, -1.3723986], rtol=1e-6)
    assert tf.image.per_image_standardization(tf.ones([2, 2, 1], tf.float64)).dtype == tf.float32


def test_colour_space_transforms_open_no_name_scope():
    assert tf.image.rgb_to_yiq(tf.ones([2, 2, 3])).name == "Tensordot:0"
    assert tf.image.rgb_to_yuv(tf.ones([2, 2, 3])).name == "Tensordot_1:0"


# -- Strings ----------------------------------------------------------------------------------------

def test_strings_split_of_a_scalar_splits_it_as_one_row():
    tokens = tf.strings.split("a b c")
    value = _run(tokens)
    assert value.indices.tolist() == [[0, 0], [0, 1], [0, 2]]
    assert value.dense_shape.tolist() == [1, 3]


def test_strings_split_of_a_matrix_gives_a_rank3_sparse_tensor():
    value = _run(tf.strings.split([["a b", "c"], ["", "d e f"]]))
    assert value.indices.tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 1, 0], [1, 1, 1], [1, 1, 2]]
    assert value.values.tolist() == [b"a", b"b", b"c", b"d", b"e", b"f"]
    assert value.dense_shape.tolist() == [2, 2, 3]
    with pytest.raises(ValueError, match=r"^result_type must be 'RaggedTensor' or 'SparseTensor'.$"):
        tf.strings.split(["a b"], result_type="X")


# -- InvertPermutation, tensordot -------------------------------------------------------------------

@pytest.mark.parametrize(("perm", "message"), [
    ([2, 2, 1], "2 is duplicated in the input."),
    ([0, 3, 1], "3 is not between 0 and 3"),
    ([0, 1, -1, 1], "-1 is not between 0 and 4"),
])
def test_invert_permutation_names_the_first_bad_entry(perm, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(tf.invert_permutation(perm))
    assert runtime_message(info.value).split("\n")[0] == message


def test_invert_permutation_needs_a_vector_at_build():
    with pytest.raises(ValueError, match="^Shape must be rank 1 but is rank 2"):
        tf.invert_permutation([[0]])


def test_tensordot_skips_reshapes_that_change_nothing():
    tf.tensordot(tf.ones([2, 3]), tf.ones([3, 4]), 1)
    types = sorted(op.type for op in tf.get_default_graph().get_operations())
    assert types == ["Const", "Const", "MatMul"]


# -- Pooling and transposed convolution -------------------------------------------------------------

def test_max_pool_across_depth():
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(1, 2, 3, 4)
    out = tf.nn.max_pool(x, [1, 1, 1, 2], [1, 1, 1, 2], "VALID")
    assert out.shape.as_list() == [1, 2, 3, 2]
    np.testing.assert_array_equal(_run(out), x.reshape(1, 2, 3, 2, 2).max(-1))
    nchw = tf.nn.max_pool(x.transpose(0, 3, 1, 2), [1, 2, 1, 1], [1, 2, 1, 1], "VALID", data_format="NCHW")
    np.testing.assert_array_equal(_run(nchw), x.reshape(1, 2, 3, 2, 2).max(-1).transpose(0, 3, 1, 2))


@pytest.mark.parametrize(("ksize", "strides", "message"), [
    ([1, 1, 1, 2], [1, 1, 1, 2], "Depthwise max pooling requires the depth window to evenly divide the input depth"),
    ([1, 1, 1, 3], [1, 1, 1, 1], "Depthwise max pooling requires the depth window to equal the depth stride"),
    ([1, 2, 2, 3], [1, 1, 1, 3], "MaxPooling supports exactly one of pooling across depth or pooling across "
                                 "width/height."),
])
def test_max_pool_across_depth_limits(ksize, strides, message):
    with pytest.raises(tf.errors.UnimplementedError) as info:
        _run(tf.nn.max_pool(tf.ones([2, 5, 5, 3]), ksize, strides, "VALID"))
    assert runtime_message(info.value).split("\n")[0] == message


def test_max_pool_v1_rejects_a_zero_window_at_build():
    with pytest.raises(ValueError, match=r"^`ksize` cannot be zero. Received: ksize=\[1, 0, 2, 1\]$"):
        tf.nn.max_pool(tf.ones([2, 5, 5, 3]), [1, 0, 2, 1], [1, 1, 1, 1], "VALID")
    for ksize, shown in ((0, r"\[1, 0, 0, 1\]"), ([2, 0], r"\[1, 2, 0, 1\]")):  # as the 4 sizes TF makes of them
        with pytest.raises(ValueError, match=rf"^`ksize` cannot be zero. Received: ksize={shown}$"):
            tf.nn.max_pool(tf.ones([2, 5, 5, 3]), ksize, 1, "VALID")
    with pytest.raises(ValueError, match=r"^strides should be of length 1, 2 or 4. Received: strides=\[1, 2, 3\] of length 3$"):
        tf.nn.max_pool(tf.ones([2, 5, 5, 3]), 0, [1, 2, 3], "VALID")


@pytest.mark.parametrize(("ksize", "message"), [
    ([2, 2, 2, 2, 1], "Pooling is not yet supported on the batch dimension."),
    ([1, 2, 2, 2, 2], "Pooling is not yet supported on the depth dimension."),
])
def test_pool3d_names_the_unsupported_dimension(ksize, message):
    with pytest.raises(tf.errors.UnimplementedError) as info:
        _run(tf.nn.max_pool3d(tf.ones([1, 4, 4, 4, 2]), ksize, [1, 2, 2, 2, 1], "SAME"))
    assert runtime_message(info.value).split("\n")[0] == message


def test_pool1d_squeezes_inside_its_scope():
    assert tf.nn.avg_pool1d(tf.ones([2, 7, 3]), 2, 2, "SAME").name == "AvgPool1D/Squeeze:0"


def test_conv2d_transpose_takes_the_batch_from_out_backprop():
    w = tf.ones([3, 3, 3, 4])
    sizes = tf.placeholder_with_default([2, 6, 6, 3], [4])
    assert tf.nn.conv2d_transpose(tf.ones([2, 3, 3, 4]), w, sizes, [1, 2, 2, 1], "SAME").shape.as_list() == \
        [2, None, None, None]
    sizes = tf.stack([2, tf.placeholder(tf.int32, []), 6, 3])
    out = tf.nn.conv2d_transpose(tf.placeholder(tf.float32, [None, 3, 3, 4]), w, sizes, [1, 2, 2, 1], "SAME")
    assert out.shape.as_list() == [None, None, 6, 3]
    with pytest.raises(ValueError, match="^Dimensions must be equal, but are 3 and 2"):
        tf.nn.conv2d_transpose(tf.ones([2, 3, 3, 4]), w, [3, 6, 6, 3], [1, 2, 2, 1], "SAME")


# -- matrix_diag / matrix_diag_part -----------------------------------------------------------------

def test_matrix_diag_of_a_bool_tensor_pads_with_false():
    np.testing.assert_array_equal(_run(tf.matrix_diag(tf.constant([True, False]))), [[True, False], [False, False]])
    np.testing.assert_array_equal(_run(tf.matrix_diag_part(tf.constant([[True, False], [False, True]]))),
                                  [True, True])


def test_matrix_diag_of_a_bool_list_fails_converting_the_padding_as_tf():
    with pytest.raises(TypeError) as info:
        tf.matrix_diag([True, False])
    assert str(info.value) == ("Expected bool passed to parameter 'padding_value' of op 'MatrixDiagV3', got 0 of "
                               "type 'int' instead. Error: Expected bool, but got 0 of type 'int'.")


def test_meshgrid_outputs_are_named_as_tf_multiplies():
    x, y = tf.meshgrid([1, 2, 3], [4, 5])
    assert (x.name, y.name) == ("meshgrid/mul:0", "meshgrid/mul_1:0")


def test_random_crop_asserts_the_value_is_large_enough():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(tf.random_crop(tf.ones([4, 5, 3]), [5, 2, 3]))
    assert runtime_message(info.value).split("\n")[0] == "assertion failed: [Need value.shape >= size, got ] [4 5 3] [5 2 3]"
    with pytest.raises(ValueError, match=r"^Dimensions must be equal, but are 3 and 2 for '\{\{node "
                                         r"random_crop_1/GreaterEqual\}\}"):
        tf.random_crop(tf.ones([4, 5, 3]), [2, 2])
    assert _run(tf.random_crop(tf.ones([4, 5, 3]), [2, 2, 3])).shape == (2, 2, 3)


def test_int64_mean_wraps_its_sum_and_truncates():
    assert _run(tf.reduce_mean(tf.constant([2 ** 62, 2 ** 62], tf.int64))) == -2 ** 62
    np.testing.assert_array_equal(_run(tf.truncatediv(tf.constant([-7, 7, -7, 0], tf.int64), [2, -2, -2, 3])),
                                  [-3, -3, 3, 0])


def test_sparse_add_of_unordered_operands_merges_them_as_if_ordered():
    a = tf.SparseTensor([[1, 0], [0, 2], [0, 1]], [1., 2., 3.], [2, 3])
    b = tf.SparseTensor([[0, 1], [1, 0]], [-1., 1.5], [2, 3])
    value = _run(tf.sparse_add(a, b))
    assert value.indices.tolist() == [[0, 1], [1, 0], [0, 2], [0, 1]]
    assert value.values.tolist() == [-1., 2.5, 2., 3.]
    repeated = tf.SparseTensor([[0, 0], [0, 0], [1, 1]], [1, 2, 3], [2, 2])
    value = _run(tf.sparse_add(repeated, tf.SparseTensor([[0, 0], [1, 0]], [5, 6], [2, 2])))
    assert value.indices.tolist() == [[0, 0], [0, 0], [1, 0], [1, 1]]
    assert value.values.tolist() == [6, 2, 6, 3]


def test_tensordot_of_a_partly_known_shape_builds_tf_graph():
    x = tf.placeholder(tf.float32, [None, 3, 4], name="x")
    out = tf.tensordot(x, tf.ones([4, 2]), 1)
    assert out.shape.as_list() == [None, 3, 2]
    names = sorted(op.name for op in tf.get_default_graph().get_operations() if op.name.startswith("Tensordot/"))
    assert names == ["Tensordot/Const", "Tensordot/Const_1", "Tensordot/Const_2", "Tensordot/GatherV2",
                     "Tensordot/GatherV2/axis", "Tensordot/GatherV2_1", "Tensordot/GatherV2_1/axis",
                     "Tensordot/MatMul", "Tensordot/Prod", "Tensordot/Prod_1", "Tensordot/Reshape", "Tensordot/Shape",
                     "Tensordot/axes", "Tensordot/concat", "Tensordot/concat/axis", "Tensordot/concat_1",
                     "Tensordot/concat_1/axis", "Tensordot/free", "Tensordot/stack", "Tensordot/transpose"]
    value = np.arange(24.).reshape(2, 3, 4)
    np.testing.assert_allclose(_run(out, {x: value}), value @ np.ones([4, 2]))


def test_matrix_set_diag_checks_the_diagonal_shape_as_tf():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(tf.matrix_set_diag(tf.zeros([2, 3]), [1., 2., 3.]))
    assert runtime_message(info.value).split("\n")[:4] == [
        "Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] is not equal to "
        "the longests diagonal in range [lower_diag_index:upper_diag_index].", "Input shape: [2,3]",
        "Diagonal shape: [3]", "Expected diagonal shape: [2]"]
    with pytest.raises(ValueError, match="^Shape must be rank 3 but is rank 2"):
        tf.matrix_set_diag(tf.zeros([2, 2, 3]), [[1., 2.]], k=(0, 1))
    with pytest.raises(ValueError, match="^Shape must be at least rank 2 but is rank 1"):
        tf.matrix_set_diag(tf.zeros([2, 2, 3]), [1., 2.])
    unknown = tf.placeholder_with_default(tf.zeros([2, 2, 3]), [None, 2, None])
    assert tf.matrix_set_diag(unknown, [[1., 2.], [3., 4.]]).shape.as_list() == [2, 2, None]


# -- 16-bit colour PNGs -----------------------------------------------------------------------------

_RGB16 = np.array([[[0, 65535, 1234], [40000, 2, 513]], [[7, 8, 9], [65000, 300, 12345]]], np.uint16)
_RGB16_PNG_FROM_TF = (  # tf.image.encode_png(_RGB16): libpng's filtered rows
    b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x02\x10\x02\x00\x00\x00\xadDF0\x00\x00\x00"IDAT'
    b'\x08\x99c``\xf8\xff\x9f\xe5\xd2\x1c\x07\x06&&FF\x06v\x06\x0e\x06\xce\xbf\x0f\x19U\x0c\x0c\x00Z=\x062\xf8\xe7'
    b'\xd7?\x00\x00\x00\x00IEND\xaeB`\x82')


def test_decode_png_keeps_all_16_bits_of_colour():
    np.testing.assert_array_equal(_run(tf.image.decode_png(_RGB16_PNG_FROM_TF, dtype=tf.uint16)), _RGB16)
    assert _run(tf.image.decode_png(_RGB16_PNG_FROM_TF)).tolist() == [[[0, 255, 4], [156, 0, 2]],
                                                                       [[0, 0, 0], [253, 1, 48]]]


@pytest.mark.parametrize("channels", [2, 3, 4])
def test_encode_png_of_16_bit_colour_round_trips(channels):
    image = (np.arange(4 * 5 * channels) * 797 + 5).astype(np.uint16).reshape(4, 5, channels)
    decoded = tf.image.decode_png(tf.image.encode_png(image), dtype=tf.uint16)
    np.testing.assert_array_equal(_run(decoded), image)


@pytest.mark.parametrize(("build", "message"), [
    (lambda: tf.nn.conv2d(tf.ones([1, 4, 4, 2]), tf.ones([2, 2, 2, 3]), 1, "SAME", dilations=[2, 1, 1, 1]),
     "Current implementation does not yet support dilations in the batch and depth dimensions."),
    (lambda: tf.nn.conv3d(tf.ones([1, 2, 2, 2, 1]), tf.ones([1, 1, 1, 1, 1]), [1] * 5, "SAME",
                          dilations=[2, 1, 1, 1, 1]),
     "Current implementation does not yet support dilations rates in the batch and depth dimensions."),
])
def test_conv_dilation_of_batch_or_depth_is_an_invalid_argument(build, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(build())
    assert runtime_message(info.value).split("\n")[0] == message


def test_avg_pool_v1_takes_no_explicit_padding():
    with pytest.raises(TypeError, match=r"^Expected string for argument 'padding' not \[\[0, 0\], \[1, 1\], "):
        tf.nn.avg_pool(tf.ones([1, 4, 4, 2]), 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]])


def test_xdivy_opens_its_name_scope():
    assert tf.math.xdivy(tf.constant([0., 1.]), tf.constant([0., 2.])).name == "xdivy/Xdivy:0"


def test_population_count_counts_the_twos_complement_bits():
    values = _run(tf.raw_ops.PopulationCount(x=tf.constant([0, 1, 7, -1, 100], tf.int16)))
    assert values.dtype == np.uint8 and values.tolist() == [0, 1, 3, 16, 3]
    assert tf.gradients(tf.cast(tf.raw_ops.PopulationCount(x=tf.constant([3])), tf.float32),
                        tf.constant([3]))[0] is None


def test_snapshot_is_a_copy_without_a_gradient():
    x = tf.constant([1., 2.])
    snap = tf.raw_ops.Snapshot(input=x)
    assert snap.op.type == "Snapshot" and _run(snap).tolist() == [1., 2.]
    with pytest.raises(LookupError, match="No gradient defined for operation"):
        tf.gradients(snap, x)


@pytest.mark.parametrize("adjust", [lambda x: tf.image.adjust_contrast(x, 1.5),
                                    lambda x: tf.image.adjust_saturation(x, 1.5),
                                    lambda x: tf.image.adjust_hue(x, 0.1)])
def test_colour_adjustments_of_half_have_no_cpu_kernel(adjust):
    with pytest.raises(tf.errors.InvalidArgumentError, match="No OpKernel was registered to support Op 'Adjust"):
        _run(adjust(tf.ones([2, 2, 3], tf.float16)))
    with tf.Graph().as_default():
        assert _run(adjust(tf.ones([2, 2, 3], tf.float64))).dtype == np.float64


def test_string_split_converts_the_delimiter_first():
    with pytest.raises(ValueError, match=r"\(StringSplit/Const_1, StringSplit/Const\)"):
        tf.string_split([["a b"]])


def test_scatter_nd_of_strings_concatenates_onto_empty_strings():
    assert _run(tf.scatter_nd([[0], [0], [1]], ["a", "b", "c"], [3])).tolist() == [b"ab", b"c", b""]
    assert _run(tf.scatter_nd([[1]], [["a", "b"]], [2, 2])).tolist() == [[b"", b""], [b"a", b"b"]]


def test_cast_of_a_sparse_tensor_or_indexed_slices_casts_the_values():
    sparse = tf.cast(tf.SparseTensor([[0, 1], [1, 2]], [1.5, 2.], [2, 5]), tf.int32)
    assert isinstance(sparse, tf.SparseTensor) and sparse.values.name == "Cast:0"
    assert _run(sparse.values).tolist() == [1, 2]
    slices = tf.cast(tf.IndexedSlices(tf.constant([[1.5]]), tf.constant([0])), tf.int64)
    assert isinstance(slices, tf.IndexedSlices) and slices.values.name == "Cast_1:0"


@pytest.mark.parametrize(("axis", "shapes", "expand", "static"), [
    (0, ([None, 5], [None, 6]), False, [None, 5]),
    (1, ([2, 5], [None, 5]), False, [2, 10]),
    (-1, ([2, 5], [2, None]), False, [2, None]),
    (1, ([2, None], [3, 4]), True, [3, None]),
])
def test_sparse_concat_static_shape_as_tf(axis, shapes, expand, static):
    inputs = [tf.sparse_placeholder(tf.float32, shape=s) for s in shapes]
    out = tf.sparse_concat(axis, inputs, expand_nonconcat_dim=expand)
    assert out.shape.as_list() == static and out.dense_shape.op.type == "SparseConcat"
