"""Divergences from TensorFlow found by running the same TF1 programs on both: values, dtypes, node names
and error messages are literals recorded from real TensorFlow 2.21 (`tf.compat.v1`)."""

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf
from tensorweave.framework import dtypes


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


# -- MatMul / BatchMatMulV2 -------------------------------------------------------------------------

@pytest.mark.parametrize(("kwargs", "shapes", "message"), [
    ({}, ((3, 4), (3, 4)), "Matrix size-incompatible: In[0]: [3,4], In[1]: [3,4] 0 0"),
    ({"adjoint_a": True, "transpose_b": True}, ((3, 4), (3, 4)),
     "Matrix size-incompatible: In[0]: [3,4], In[1]: [3,4] 1 1"),
    ({"transpose_a": True}, ((3, 4), (5, 2)), "Matrix size-incompatible: In[0]: [3,4], In[1]: [5,2] 1 0"),
])
def test_batch_matmul_size_error_names_inputs_as_given_and_adjoint_flags(kwargs, shapes, message):
    a, b = tf.placeholder(tf.float32), tf.placeholder(tf.float32)  # unknown rank: BatchMatMulV2
    product = tf.matmul(a, b, **kwargs)
    assert product.op.type == "BatchMatMulV2"
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(product, {a: np.ones(shapes[0]), b: np.ones(shapes[1])})
    assert runtime_message(info.value).split("\n")[0] == message


def test_batch_matmul_adjoint_still_computes():
    a, b = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    value = _run(tf.matmul(a, b, adjoint_a=True, transpose_b=True),
                 {a: [[1., 2.], [3., 4.], [5., 6.]], b: [[1., 0., 1.]]})
    np.testing.assert_array_equal(value, [[6.], [8.]])


# -- Cast ------------------------------------------------------------------------------------------

def test_cast_to_bfloat16_rounds_to_nearest():
    value = _run(tf.cast(tf.constant([1.7, 3.14159]), tf.bfloat16))
    assert value.dtype == dtypes.bfloat16.as_numpy_dtype
    np.testing.assert_array_equal(value.astype(np.float32), [1.703125, 3.140625])


# -- div_no_nan, scalar_mul -----------------------------------------------------------------------

def test_div_no_nan_divides_like_truediv_and_gives_zero_for_zero_divisors():
    outputs = [tf.div_no_nan(tf.constant([1, 2]), tf.constant([0, 4])),
               tf.math.divide_no_nan(3., tf.constant([0., 2.]), name="d"),
               tf.div_no_nan(tf.constant([1., np.nan]), 0.),
               tf.div_no_nan(tf.constant([1], tf.int8), tf.constant([0], tf.int8))]
    assert [t.name for t in outputs] == ["div_no_nan:0", "d:0", "div_no_nan_1:0", "div_no_nan_2:0"]
    assert [t.dtype for t in outputs] == [tf.float64, tf.float32, tf.float32, tf.float32]
    values = _run(outputs)
    for value, want in zip(values, [[0., 0.5], [0., 1.5], [0., 0.], [0.]]):
        np.testing.assert_array_equal(value, want)


def test_div_no_nan_refuses_what_truediv_refuses():
    with pytest.raises(TypeError, match=r"^Invalid dtype tf.bool in tf.math.divide_no_nan. Expected one of "
                                        r"\{tf.uint8, tf.int8, "):
        tf.div_no_nan(tf.constant([True]), tf.constant([True]))
    with pytest.raises(TypeError, match=r"^`x` and `y` must have the same dtype, got tf.int32 != tf.float32.$"):
        tf.div_no_nan(tf.constant([1]), tf.constant([1.]))


def test_scalar_mul_converts_the_scalar_to_x_dtype():
    x = tf.constant([1., 2.])
    product = tf.scalar_mul(2, x, name="sm")
    assert (product.name, product.op.type) == ("sm:0", "Mul")
    np.testing.assert_array_equal(_run(tf.math.scalar_mul(2., x)), [2., 4.])
    with pytest.raises(ValueError, match=r"^The input scalar must be a 0-D value. Received shape \(2,\).$"):
        tf.scalar_mul([1., 2.], x)
    with pytest.raises(TypeError):
        tf.scalar_mul(1.5, tf.constant([1, 2]))
    sliced = tf.scalar_mul(2., tf.IndexedSlices(tf.ones([1, 2]), tf.constant([0]), tf.constant([3, 2])))
    assert isinstance(sliced, tf.IndexedSlices) and sliced.values.op.type == "Mul"
    np.testing.assert_array_equal(_run(sliced.values), [[2., 2.]])


# -- Split, gather --------------------------------------------------------------------------------

def test_split_uneven_static_error_first_line():
    with pytest.raises(ValueError) as info:
        tf.split(tf.zeros([3, 4]), 3, axis=1)
    lines = str(info.value).split("\n")
    assert lines[0] == "Dimension size must be evenly divisible by 3 but is 4"
    assert lines[1].startswith("\tNumber of ways to split should evenly divide the split dimension for "
                               "'{{node split}} = Split[")


def test_gather_drops_batch_dims_when_axis_is_statically_zero():
    params = tf.reshape(tf.range(12), [3, 4])
    indices = [[0, 1], [1, 2], [2, 2]]
    zero_axis = [tf.gather(params, indices, axis=0, batch_dims=1),
                 tf.gather(params, indices, axis=tf.constant(0), batch_dims=1)]
    for t in zero_axis:
        assert t.op.get_attr("batch_dims") == 0
        assert t.shape.as_list() == [3, 2, 4]
    batched = tf.gather(params, indices, axis=1, batch_dims=1)
    assert batched.op.get_attr("batch_dims") == 1
    assert batched.shape.as_list() == [3, 2]
    value = _run(zero_axis[0])
    np.testing.assert_array_equal(value[2], [[8, 9, 10, 11], [8, 9, 10, 11]])
    np.testing.assert_array_equal(_run(batched), [[0, 1], [5, 6], [10, 10]])


# -- Placeholder -----------------------------------------------------------------------------------

def test_placeholder_bad_shape_fails_as_the_attr_conversion():
    with pytest.raises(ValueError, match=r"^Error converting shape to a TensorShape: Dimension -2 must be >= 0.$"):
        tf.placeholder(tf.float32, [-2])
    with pytest.raises(TypeError, match=r"^Error converting shape to a TensorShape: Dimension value must be "
                                        r"integer or None"):
        tf.placeholder(tf.float32, tf.constant([2]))


@pytest.mark.parametrize(("shape", "message"), [
    ([], "You must feed a value for placeholder tensor 'Placeholder' with dtype float"),
    (None, "You must feed a value for placeholder tensor 'Placeholder' with dtype float"),
    ([None, 2], "You must feed a value for placeholder tensor 'Placeholder' with dtype float and shape [?,2]"),
])
def test_unfed_placeholder_message_names_a_shape_only_of_rank_one_or_more(shape, message):
    p = tf.placeholder(tf.float32, shape)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(p * 2)
    assert runtime_message(info.value).split("\n")[0] == message


# -- Round -----------------------------------------------------------------------------------------

def test_round_has_no_complex_kernel():
    rounded = tf.round(tf.constant([1 + 0j, 2 + 0j], tf.complex64))
    assert rounded.op.type == "Round"
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"No OpKernel was registered to support Op 'Round'"):
        _run(rounded)


def test_zeros_like_kernel_gives_empty_strings():
    zeros = tf.zeros_like(tf.constant([["1", "2"], ["3", "4"]]), optimize=False)
    assert zeros.op.type == "ZerosLike"
    value = _run(zeros)
    assert value.tolist() == [[b"", b""], [b"", b""]]


# -- Squeeze ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [np.array([0]), {0}])
def test_squeeze_axis_must_be_a_list_tuple_or_scalar(axis):
    with pytest.raises(TypeError, match=r"^Expected list for 'axis' argument to 'squeeze' Op, not "):
        tf.squeeze(tf.ones([1, 2]), axis)


def test_squeeze_axis_scalar_and_tuple():
    squeezed = [tf.squeeze(tf.ones([1, 2]), np.int64(0)), tf.squeeze(tf.ones([1, 2]), (0,))]
    assert [t.shape.as_list() for t in squeezed] == [[2], [2]]
    assert squeezed[0].op.get_attr("squeeze_dims") == [0]


# -- matmul dispatch: SparseMatMul, grad flags, matrix_transpose -----------------------------------

def test_matmul_sparsity_hints_build_sparse_matmul_for_float32():
    a = tf.constant([[1., 2.], [3., 4.]])
    products = [tf.matmul(a, a, a_is_sparse=True), tf.matmul(a, a, b_is_sparse=True, transpose_a=True, name="s"),
                tf.matmul(a, a, a_is_sparse=True, adjoint_b=True), tf.sparse_matmul(a, a, transpose_b=True)]
    assert [(t.name, t.op.type) for t in products] == [
        ("MatMul:0", "SparseMatMul"), ("s:0", "SparseMatMul"), ("MatMul_1:0", "SparseMatMul"),
        ("SparseMatMul:0", "SparseMatMul")]
    values = _run(products)
    for value, want in zip(values, [[[7., 10.], [15., 22.]], [[10., 14.], [14., 20.]], [[5., 11.], [11., 25.]],
                                    [[5., 11.], [11., 25.]]]):
        np.testing.assert_array_equal(value, want)
    assert tf.matmul(tf.ones([2, 2], tf.float64), tf.ones([2, 2], tf.float64), a_is_sparse=True).op.type == "MatMul"
    assert tf.matmul(tf.placeholder(tf.float32), tf.ones([3, 3]), a_is_sparse=True).shape.as_list() == [None, 3]


def test_sparse_matmul_errors():
    with pytest.raises(ValueError, match=r"^Shape must be rank 2 but is rank 3 for '\{\{node MatMul\}\} = "
                                         r"SparseMatMul\[Ta=DT_FLOAT, Tb=DT_FLOAT, a_is_sparse=true"):
        tf.matmul(tf.ones([2, 3, 3]), tf.ones([3, 3]), a_is_sparse=True)
    with pytest.raises(TypeError, match=r"^Value passed to parameter 'a' has DataType float16 not in list of "
                                        r"allowed values: float32, bfloat16$"):
        tf.sparse_matmul(tf.ones([2, 2], tf.float16), tf.ones([2, 2], tf.float16))
    p, q = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    product = tf.sparse_matmul(p, q, transpose_a=True, transpose_b=True)
    for a, b, message in [(np.ones((2, 3, 1)), np.ones((3, 2)), "a is not a matrix"),
                          (np.ones((2, 3)), np.ones(3), "b is not a matrix"),
                          (np.ones((2, 3)), np.ones((2, 3)), "Matrix size incompatible: a: [2,3], b: [2,3]")]:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            _run(product, {p: a, q: b})
        assert runtime_message(info.value).split("\n")[0] == message
    np.testing.assert_array_equal(_run(product, {p: np.ones((3, 2)), q: np.ones((4, 3))}), np.full((2, 4), 3.))


def test_matmul_mixing_bfloat16_with_float32_is_a_sparse_matmul():
    product = tf.matmul(tf.constant([[1., 2.], [3., 4.]], tf.bfloat16), tf.constant([[1., 2.], [3., 4.]]))
    assert (product.op.type, product.dtype) == ("SparseMatMul", tf.float32)
    np.testing.assert_array_equal(_run(product), [[7., 10.], [15., 22.]])
    both = tf.matmul(tf.ones([2, 2], tf.bfloat16), tf.ones([2, 2], tf.bfloat16), a_is_sparse=True)
    assert (both.name, both.op.type, both.op.inputs[0].op.type) == ("MatMul_1/Cast:0", "Cast", "SparseMatMul")


def test_matmul_grad_flags_and_argument_check_inside_the_scope():
    a = tf.ones([2, 2])
    assert tf.matmul(a, a, grad_a=True).op.get_attr("grad_a") is True
    assert tf.matmul(tf.ones([2, 2, 2]), a, grad_b=True).op.get_attr("grad_y") is True
    with pytest.raises(ValueError, match="^Only one of `transpose_a` and `adjoint_a` can be True."):
        tf.matmul(a, a, transpose_a=True, adjoint_a=True)
    assert tf.matmul(a, a).name == "MatMul_3:0"  # the failed call used up a name, as TF's does


def test_linalg_transpose_swaps_the_last_two_dimensions():
    x = tf.reshape(tf.range(12), [2, 2, 3])
    swapped = [tf.linalg.transpose(x), tf.matrix_transpose(x, name="mt"), tf.linalg.matrix_transpose(x)]
    assert [t.name for t in swapped] == ["matrix_transpose/transpose:0", "mt/transpose:0",
                                         "matrix_transpose_1/transpose:0"]
    assert swapped[0].shape.as_list() == [2, 3, 2]
    np.testing.assert_array_equal(_run(swapped[0]), np.arange(12).reshape(2, 2, 3).transpose(0, 2, 1))
    p = tf.placeholder(tf.float32)
    np.testing.assert_array_equal(_run(tf.linalg.transpose(p), {p: np.arange(6.).reshape(1, 2, 3)}),
                                  np.arange(6.).reshape(1, 2, 3).transpose(0, 2, 1))
    conjugated = tf.linalg.transpose(tf.constant([[1j, 2]]), conjugate=True)
    np.testing.assert_array_equal(_run(conjugated), [[-1j], [2]])
    with pytest.raises(ValueError, match=r"^Argument `a` should be a \(batch\) matrix with rank >= 2.  Received"):
        tf.linalg.transpose(tf.ones([3]))


# -- TF1 raw-op aliases ----------------------------------------------------------------------------

def test_raw_op_aliases_arg_max_arg_min_floor_div():
    x = tf.constant([[1., 5.], [7., 2.]])
    outputs = [tf.arg_max(x, 1), tf.arg_min(x, 0, output_type=tf.int32, name="am"),
               tf.floor_div(tf.constant([7, -7]), 2), tf.floor_div(tf.constant([7.]), 2., name="fd")]
    assert [(t.name, t.op.type, t.dtype) for t in outputs] == [
        ("ArgMax:0", "ArgMax", tf.int64), ("am:0", "ArgMin", tf.int32), ("FloorDiv:0", "FloorDiv", tf.int32),
        ("fd:0", "FloorDiv", tf.float32)]
    values = _run(outputs)
    for value, want in zip(values, [[1, 0], [0, 1], [3, -4], [3.]]):
        np.testing.assert_array_equal(value, want)
    with pytest.raises(TypeError):
        tf.arg_max(x)  # `dimension` is required


def test_cast_shorthands_and_dtypes_namespace():
    x = tf.constant([1.5])
    assert [(t.name, t.dtype) for t in (tf.to_complex64(x), tf.to_complex128(x), tf.to_bfloat16(x))] == [
        ("ToComplex64:0", tf.complex64), ("ToComplex128:0", tf.complex128), ("ToBFloat16:0", tf.bfloat16)]
    assert tf.dtypes.complex(1., 2.).dtype == tf.complex64
    np.testing.assert_array_equal(_run(tf.dtypes.saturate_cast(tf.constant([300., -300.]), tf.int8)), [127, -128])


def test_complex_to_real_casts_warn_as_tf(caplog):
    with tf.Graph().as_default(), caplog.at_level("WARNING", logger="tensorflow"):
        tf.cast(tf.constant([1 + 2j]), tf.float16)
        tf.cast(tf.constant([1 + 2j]), tf.int32)  # TF warns only for a floating target
        tf.saturate_cast(tf.constant([1 + 2j]), tf.int8)
    assert [r.getMessage() for r in caplog.records] == [
        "You are casting an input of type complex128 to an incompatible dtype float16.  This will discard the "
        "imaginary part and may not be what you intended.", "Casting complex to real discards imaginary part."]


# -- Range -----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("limit", "message"), [
    (np.inf, "Requires ((limit - start) / delta) <= 9223372036854775807"),
    (np.nan, "Requires start <= limit when delta > 0: 0/nan"),
])
def test_range_of_a_non_finite_limit_fails_as_tf_kernel(limit, message):
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(tf.range(p), {p: limit})
    assert runtime_message(info.value).split("\n")[0] == message


def test_range_of_an_infinite_constant_fails_in_shape_inference():
    with pytest.raises(ValueError, match=r"^Requires \(\(limit - start\) / delta\) <= 9223372036854775807 for "
                                         r"'\{\{node range\}\} = Range\[Tidx=DT_FLOAT\]"):
        tf.range(np.inf)


# -- Fill, Reshape, Tile, GatherNd kernels ---------------------------------------------------------

def test_fill_kernel_reads_a_scalar_dims_and_a_one_element_value():
    dims, value = tf.placeholder(tf.int32), tf.placeholder(tf.float32)
    filled = tf.fill(dims, value)
    np.testing.assert_array_equal(_run(filled, {dims: 2, value: 1.}), [1., 1.])
    np.testing.assert_array_equal(_run(filled, {dims: [2], value: [3.]}), [3., 3.])
    for feed, message in [({dims: [2], value: [[1.]]}, "value must represent a scalar, got shape [1,1]"),
                          ({dims: [[2]], value: 1.}, "dims must represent a vector, got shape [1,1]")]:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            _run(filled, feed)
        assert runtime_message(info.value).split("\n")[0] == message


@pytest.mark.parametrize(("value_shape", "sizes", "message"), [
    ((2, 3), [[6]], "sizes input must be 1-D, not [1,1]"),
    ((2, 3), [-2, -3], "Size 0 must be non-negative, not -2"),
    ((2, 3), [-1, -2], "Size 1 must be non-negative, not -2"),
    ((2, 3), [-1, -1, 6], "Only one input size may be -1, not both 0 and 1"),
    ((2, 3), [4, -1], "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple of 4"),
    ((2, 3), [0, -1], "Input to reshape is a tensor with 6 values, but the requested shape has 0"),
    ((2, 3), [7], "Input to reshape is a tensor with 6 values, but the requested shape has 7"),
    ((2,), [], "Input to reshape is a tensor with 2 values, but the requested shape has 1"),
])
def test_reshape_kernel_errors(value_shape, sizes, message):
    value, shape = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(tf.reshape(value, shape), {value: np.ones(value_shape), shape: sizes})
    assert runtime_message(info.value).split("\n")[0] == message


def test_reshape_kernel_infers_around_zero_sized_dimensions():
    value, shape = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    reshaped = tf.reshape(value, shape)
    assert _run(reshaped, {value: np.ones((0, 3)), shape: [-1, 0]}).shape == (3, 0)
    assert _run(reshaped, {value: np.ones((2, 3)), shape: [3, -1]}).shape == (3, 2)
    assert _run(reshaped, {value: 5., shape: []}).shape == ()


def test_tile_kernel_wants_a_vector_of_multiples():
    value, multiples = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    tiled = tf.tile(value, multiples)
    for m, message in [([[2, 1]], "Expected multiples to be 1-D, but got shape [1,2]"),
                       (2, "Expected multiples to be 1-D, but got shape []"),
                       ([2], "Expected multiples argument to be a vector of length 2 but got length 1")]:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            _run(tiled, {value: np.ones((2, 2)), multiples: m})
        assert runtime_message(info.value).split("\n")[0] == message


def test_gather_nd_bad_indices_policy():
    params = tf.constant([[1, 2], [3, 4]])
    ignored = [tf.gather_nd(params, [[0, 1], [2, 0], [1, 1]], bad_indices_policy="IGNORE"),
               tf.gather_nd(params, [[0], [2]], bad_indices_policy="IGNORE"),
               tf.gather_nd(tf.constant([["a", "b"]]), [[0, 1], [2, 0]], bad_indices_policy="IGNORE")]
    values = _run(ignored)
    assert values[0].tolist() == [2, 0, 4]
    assert values[1].tolist() == [[1, 2], [0, 0]]
    assert values[2].tolist() == [b"b", b""]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = \[2, 0\] does not index into param "
                                                             r"shape \[2,2\], node name: GatherNd"):
        _run(tf.gather_nd(params, [[0, 1], [2, 0]], bad_indices_policy="ERROR", name="GatherNd"))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"No OpKernel was registered to support Op "
                                                             r"'GatherNd'.*bad_indices_policy=\"ignore\""):
        _run(tf.gather_nd(params, [[0, 1]], bad_indices_policy="ignore"))


def test_mean_of_nothing_is_nan_for_floats_and_zero_for_complex():
    means = [tf.reduce_mean(tf.zeros([0], tf.complex64)), tf.reduce_mean(tf.zeros([0, 2], tf.complex128), 0),
             tf.reduce_mean(tf.zeros([0], tf.float32)), tf.reduce_mean(tf.zeros([0], tf.int32))]
    values = _run(means)
    assert values[0] == 0 and values[1].tolist() == [0j, 0j]
    assert np.isnan(values[2]) and values[3] == 0


# -- Elu, Selu ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("dtype", "elu", "selu"), [
    (np.float64, [-1.000000082740371e-10, -0.6321205588285577, 2.0],
     [-1.7580994863131687e-10, -1.1113307378125628, 2.101401974710961]),
    (np.float32, [0.0, -0.6321205496788025, 2.0], [0.0, -1.1113307476043701, 2.1014020442962646]),
])
def test_elu_and_selu_compute_exp_minus_one_as_tf_kernels(dtype, elu, selu):
    x = tf.constant(np.array([-1e-10, -1.0, 2.0], dtype))
    values = _run([tf.nn.elu(x), tf.nn.selu(x)])
    assert values[0][0] == elu[0] and values[1][0] == selu[0]  # exp(x) - 1, not expm1(x)
    np.testing.assert_allclose(values[0], elu, rtol=1e-6)  # float32 exp may differ from Eigen's by an ulp
    np.testing.assert_allclose(values[1], selu, rtol=1e-6)


def test_elu_and_selu_in_half_precision():
    x = tf.constant([-1e-3, -1.0, 2.0], tf.float16)
    values = _run([tf.nn.elu(x), tf.nn.selu(x)])
    assert values[0].tolist() == [-0.0009765625, -0.6318359375, 2.0]
    assert values[1].tolist() == [-0.00171661376953125, -1.1103515625, 2.1015625]


def test_softplus_uses_tf_thresholds():
    half = _run(tf.nn.softplus(tf.constant([-8.0, -7.0, -5.0, 0.0, 5.0, 7.5], tf.float16)))
    assert half.tolist() == [0.00033545494079589844, 0.0009112358093261719, 0.0067138671875, 0.693359375,
                             5.0078125, 7.5]
    double = _run(tf.nn.softplus(tf.constant([-34.0, -20.0, 0.0, 20.0, 40.0], tf.float64)))
    np.testing.assert_allclose(double, [1.7139084315420114e-15, 2.061153620314381e-09, 0.6931471805599453,
                                        20.000000002061153, 40.0], rtol=1e-15)
    assert double[-1] == 40.0  # above the threshold softplus(x) is x itself


# -- TF1 composites of existing ops ---------------------------------------------------------------

def _node_names():
    return [f"{op.name}:{op.type}" for op in tf.get_default_graph().get_operations()]


def test_xw_plus_b_and_relu_layer():
    x, w = tf.constant([[1., 2.]]), tf.constant([[1., 0., 1.], [0., 1., -5.]])
    b = tf.constant([1., 2., 3.])
    outputs = [tf.nn.xw_plus_b(x, w, b), tf.nn.relu_layer(x, w, b, name="rl")]
    assert [t.name for t in outputs] == ["xw_plus_b:0", "rl:0"]
    assert _node_names()[3:] == ["xw_plus_b/MatMul:MatMul", "xw_plus_b:BiasAdd", "rl/MatMul:MatMul",
                                 "rl/BiasAdd:BiasAdd", "rl:Relu"]
    values = _run(outputs)
    np.testing.assert_array_equal(values[0], [[2., 4., -6.]])
    np.testing.assert_array_equal(values[1], [[2., 4., 0.]])


def test_batch_normalization_composes_as_tf():
    x = tf.constant([[1., 2.], [3., 5.]])
    mean, variance = tf.constant([2., 3.5]), tf.constant([1., 2.25])
    normalized = tf.nn.batch_normalization(x, mean, variance, tf.constant([0.5, 1.]), tf.constant([2., 3.]), 1e-3,
                                           name="bn")
    assert normalized.name == "bn/add_1:0"
    assert _node_names()[5:] == ["bn/add/y:Const", "bn/add:AddV2", "bn/Rsqrt:Rsqrt", "bn/mul:Mul", "bn/mul_1:Mul",
                                 "bn/mul_2:Mul", "bn/sub:Sub", "bn/add_1:AddV2"]
    np.testing.assert_allclose(_run(normalized), [[-1.4990007877349854, -1.9993336200714111],
                                                  [2.4990010261535645, 3.9993338584899902]], rtol=1e-6)
    unscaled = tf.nn.batch_normalization(x, mean, variance, None, None, 0.)
    np.testing.assert_allclose(_run(unscaled), [[-1.0, -1.0000001192092896], [1.0, 1.0]], rtol=1e-6)


def test_weighted_cross_entropy_with_logits():
    labels, logits = tf.constant([[0., 1., 0.5]]), tf.constant([[1., -2., 0.3]])
    loss = tf.nn.weighted_cross_entropy_with_logits(targets=labels, logits=logits, pos_weight=2., name="w")
    assert (loss.name, loss.op.type) == ("w:0", "AddV2")
    np.testing.assert_allclose(_run(loss), [[1.3132617473602295, 4.253856182098389, 0.9815329313278198]], rtol=1e-6)
    with pytest.raises(ValueError, match=r"^`logits` and `labels` must have the same shape, received \(\(3,\) vs "
                                         r"\(2,\)\).$"):
        tf.nn.weighted_cross_entropy_with_logits(labels=tf.ones([2]), logits=tf.ones([3]), pos_weight=1.)
    with pytest.raises(ValueError, match="^Cannot specify both 'targets' and 'labels'.$"):
        tf.nn.weighted_cross_entropy_with_logits(labels=tf.ones([2]), targets=tf.ones([2]), logits=tf.ones([2]),
                                                 pos_weight=1.)


def test_log_sigmoid_and_reciprocal_no_nan():
    log_sigmoid = tf.log_sigmoid(tf.constant([-100., 0., 1.]))
    reciprocal = tf.math.reciprocal_no_nan(tf.constant([0., 2., -4.]), name="r")
    assert (log_sigmoid.name, log_sigmoid.op.type) == ("LogSigmoid:0", "Neg")
    assert _node_names() == ["Const:Const", "LogSigmoid/Neg:Neg", "LogSigmoid/Softplus:Softplus",
                             "LogSigmoid:Neg", "Const_1:Const", "r/one:Const", "r:DivNoNan"]
    values = _run([log_sigmoid, tf.math.log_sigmoid(tf.constant([0.], tf.float64)), reciprocal])
    np.testing.assert_allclose(values[0], [-100.0, -0.6931471824645996, -0.3132616877555847], rtol=1e-6)
    assert values[1].tolist() == [-0.6931471805599453]
    assert values[2].tolist() == [0., 0.5, -0.25]
    with pytest.raises(TypeError):
        tf.math.reciprocal_no_nan(tf.constant([0, 2]))


# -- clip_by_norm, global_norm, clip_by_global_norm ------------------------------------------------

def test_clip_by_norm():
    t = tf.constant([[3., 4.], [0., 0.]])
    clipped = [tf.clip_by_norm(t, 1.), tf.clip_by_norm(t, 10., name="cn"), tf.clip_by_norm(t, 2., axes=[1]),
               tf.clip_by_norm(t, -1.), tf.clip_by_norm(t, tf.constant(1.))]
    assert [c.name for c in clipped] == ["clip_by_norm:0", "cn:0", "clip_by_norm_1:0", "clip_by_norm_2:0",
                                         "clip_by_norm_3:0"]
    assert _node_names()[1:4] == ["clip_by_norm/mul:Mul", "clip_by_norm/Const:Const", "clip_by_norm/Sum:Sum"]
    values = _run(clipped)
    np.testing.assert_allclose(values[0], [[0.6, 0.8], [0., 0.]], rtol=1e-6)
    np.testing.assert_allclose(values[1], [[3., 4.], [0., 0.]], rtol=1e-6)
    np.testing.assert_allclose(values[2], [[1.2, 1.6], [0., 0.]], rtol=1e-6)
    np.testing.assert_array_equal(values[3], [[0., 0.], [0., 0.]])
    slices = tf.clip_by_norm(tf.IndexedSlices(tf.constant([[3., 4.]]), tf.constant([1]), tf.constant([2, 2])), 1.)
    assert isinstance(slices, tf.IndexedSlices)
    np.testing.assert_allclose(_run(slices.values), [[0.6, 0.8]], rtol=1e-6)


def test_clip_by_global_norm():
    a, b = tf.constant([3., 4.]), tf.constant([[12.]])
    clipped, norm = tf.clip_by_global_norm([a, b, None], 1.)
    assert [c.name for c in clipped[:2]] + [clipped[2], norm.name] == [
        "clip_by_global_norm/clip_by_global_norm/_0:0", "clip_by_global_norm/clip_by_global_norm/_1:0", None,
        "global_norm/global_norm:0"]
    assert _node_names()[2:5] == ["global_norm/L2Loss:L2Loss", "global_norm/L2Loss_1:L2Loss", "global_norm/stack:Pack"]
    assert clipped[0].op.colocation_groups() == [b"loc:@Const"]
    values = _run(clipped[:2] + [norm, tf.linalg.global_norm([a, None, b], name="gn")])
    np.testing.assert_allclose(values[0], [0.230769, 0.307692], rtol=1e-5)
    np.testing.assert_allclose(values[1], [[0.923077]], rtol=1e-5)
    assert values[2] == values[3] == 13.
    infinite, _ = tf.clip_by_global_norm([tf.constant([np.inf, 4.])], 1.)
    assert np.isnan(_run(infinite[0])).all()
    with pytest.raises(TypeError, match="^`t_list` should be a sequence of tensors. Received <class "):
        tf.global_norm(tf.constant([1.]))


def test_reduce_variance_and_std():
    x = tf.constant([[1., 2.], [3., 5.]])
    outputs = [tf.math.reduce_variance(x), tf.math.reduce_variance(x, 0, keepdims=True, name="v"),
               tf.math.reduce_std(x, axis=1), tf.math.reduce_variance(tf.constant([1 + 1j, 3 - 1j]))]
    assert [(t.name, t.dtype, t.shape.as_list()) for t in outputs] == [
        ("reduce_variance/Mean_1:0", tf.float32, []), ("v/Mean_1:0", tf.float32, [1, 2]),
        ("reduce_std/Sqrt:0", tf.float32, [2]), ("reduce_variance_1/Mean_1:0", tf.float64, [])]
    values = _run(outputs)
    np.testing.assert_allclose(values[0], 2.1875)
    np.testing.assert_allclose(values[1], [[1., 2.25]])
    np.testing.assert_allclose(values[2], [0.5, 1.])
    np.testing.assert_allclose(values[3], 2.)
    with pytest.raises(TypeError, match=r"^Input must be either real or complex. Received integer type "
                                        r"<dtype: 'int32'>.$"):
        tf.math.reduce_variance(tf.constant([1, 2]))


def test_accumulate_n_checks_then_adds():
    a = tf.constant([1., 2.])
    sums = [tf.accumulate_n([a, a, a]), tf.math.accumulate_n([a], name="x"), tf.accumulate_n([a])]
    assert [(t.name, t.op.type) for t in sums] == [("AddN:0", "AddN"), ("x:0", "Identity"), ("Const:0", "Const")]
    np.testing.assert_array_equal(_run(sums[0]), [3., 6.])
    with pytest.raises(ValueError, match="^inputs must be a list of at least one Tensor with the same dtype and "
                                         "shape$"):
        tf.accumulate_n([tf.constant([1.]), tf.constant([1])])
    with pytest.raises(ValueError, match=r"^Shapes \(3,\) and \(1,\) are not compatible$"):
        tf.accumulate_n([tf.constant([1.])], shape=[3])
    with pytest.raises(TypeError, match="^The `tensor_dtype` argument is <dtype: 'int32'>, but `input` is of type "
                                        "<dtype: 'float32'>. These must be equal."):
        tf.accumulate_n([tf.constant([1.])], tensor_dtype=tf.int32)
