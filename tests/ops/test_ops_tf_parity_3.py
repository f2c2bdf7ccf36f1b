"""Divergences from TensorFlow found by fuzzing math, array, random, image, string, sparse and debugging ops
side by side with real TensorFlow 2.21 (`tf.compat.v1`): the expected values and messages are its literals."""

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_substr_pos_and_len_shapes_must_be_equal_not_broadcast():
    with pytest.raises(ValueError, match=r"pos and len shapes must match: \[2\] vs. \[1\] for '\{\{node Substr\}\}"):
        tf.strings.substr(["hello", "world"], [0, 1], [1])
    with pytest.raises(ValueError, match=r"pos and len shapes must match: \[\?\] vs. \[2\]"):
        tf.strings.substr(["hello", "world"], tf.placeholder(tf.int32, [None]), [1, 2])
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 0"):
        tf.strings.substr(["hello", "world"], 0, [1, 2])
    assert tf.strings.substr(["hello", "world"], tf.placeholder(tf.int32), [1, 2]).shape.ndims is None


def _sparse(dtype=tf.float32):
    return tf.SparseTensor([[0, 1], [0, 2], [1, 0]], tf.constant([3, 2, 1], dtype), [2, 3])


def test_sparse_dense_division_by_a_zero_the_entries_meet_fails():
    """Only the dense values that entries meet are checked: a zero elsewhere divides nothing."""
    assert _run((_sparse() / tf.constant([[1.0, 1.0, 1.0], [1.0, 0.0, 1.0]])).values).tolist() == [3.0, 2.0, 1.0]
    for dense in (tf.constant([-0.0, 1.0, 1.0]), tf.constant([[0.0], [2.0]])):
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="SparseDenseCwiseDiv cannot divide by zero,but input dense tensor contains zero "):
            _run((_sparse() / dense).values)


def test_sparse_true_division_casts_integers_to_float_as_dense_division():
    g = tf.Graph()
    with g.as_default():
        quotient = _sparse(tf.int16) / tf.constant([1, 2, 4], tf.int16)
        assert quotient.values.dtype == tf.float32
        assert [op.name for op in g.get_operations()][-3:] == ["truediv/Cast", "truediv/Cast_1", "truediv"]
        assert _run(quotient.values).tolist() == [1.5, 0.5, 1.0]
    assert (_sparse(tf.int32) / 2).values.dtype == tf.float64


def test_sparse_dense_cwise_ops_have_no_complex_kernel():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="No OpKernel was registered to support Op 'SparseDenseCwiseMul'"):
        _run((_sparse(tf.complex64) * tf.constant([1j, 1, 1], tf.complex64)).values)


def _bmp(width, height, bits, pixel_offset=54):
    """A BMP header with TF's fields (pixel offset, width, height, bits per pixel) and rows of i * 7 bytes."""
    import struct
    size = ((width * bits // 8) + 3) // 4 * 4 * abs(height)
    header = b"BM" + struct.pack("<IHHI", pixel_offset + size, 0, 0, pixel_offset) + struct.pack(
        "<IiiHHIIiiII", 40, width, height, 1, bits, 0, size, 0, 0, 0, 0)
    return header + bytes((i * 7) % 256 for i in range(size))


def test_decode_bmp_reads_rows_as_tf_own_reader():
    assert _run(tf.image.decode_bmp(_bmp(2, 2, 32))).tolist() == [
        [[70, 63, 56, 77], [98, 91, 84, 105]], [[14, 7, 0, 21], [42, 35, 28, 49]]]
    assert _run(tf.image.decode_bmp(_bmp(2, 2, 24, ), channels=4))[..., 3].tolist() == [[255, 255], [255, 255]]
    assert _run(tf.image.decode_bmp(_bmp(3, 1, 8))).tolist() == [[[0], [7], [14]]]
    assert _run(tf.image.decode_bmp(_bmp(2, 1, 8), channels=3)).tolist() == [[[0, 0, 0], [7, 7, 7]]]
    assert _run(tf.image.decode_bmp(_bmp(2, -2, 24)))[0, 0].tolist() == [14, 7, 0]


@pytest.mark.parametrize("contents, channels, message", [
    (_bmp(2, 2, 24)[:60], 0, r"Input size should match \(header_size \+ row_size \* abs_height\) but they differ by -10"),
    (_bmp(2, 2, 16), 0, "Number of channels inherent in the image must be 1, 3 or 4, was 2"),
    (_bmp(2, 1, 24), 1, "`channels` must be 0, 3 or 4 for BMP, but got 1"),
    (b"BM" + b"\0" * 20, 0, "Incomplete bmp content, requires at least 32 bytes"),
])
def test_decode_bmp_errors(contents, channels, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _run(tf.image.decode_bmp(contents, channels=channels))


def test_bmp_channel_check_comes_before_the_wrong_op_check():
    with pytest.raises(tf.errors.InvalidArgumentError, match="`channels` must be 0, 3 or 4 for BMP, but got 1"):
        _run(tf.image.decode_png(_bmp(2, 1, 24), channels=1))


def test_bmp_and_jpeg_widen_their_uint8_buffer_by_256_and_the_float_reciprocal():
    bmp = _run(tf.image.decode_image(_bmp(2, 1, 24), dtype=tf.uint16))
    assert bmp.tolist() == [[[3584, 1792, 0], [8960, 7168, 5376]]]
    floats = _run(tf.image.decode_image(_bmp(2, 1, 32), dtype=tf.float32))
    assert floats[0, 0].tolist() == [0.05490196496248245, 0.027450982481241226, 0.0, 0.08235294371843338]
    jpeg = tf.image.encode_jpeg(tf.fill([8, 8, 3], tf.constant(100, tf.uint8)))
    assert _run(tf.image.decode_image(jpeg, dtype=tf.uint16))[0, 0].tolist() == [25600] * 3
    assert _run(tf.image.decode_image(jpeg, dtype=tf.float32))[0, 0].tolist() == [0.3921568989753723] * 3


@pytest.mark.parametrize("op", [tf.space_to_batch_nd, tf.batch_to_space_nd])
def test_space_batch_nd_shape_messages(op):
    with pytest.raises(ValueError, match=r"block_shape must have rank 1\. for '\{\{node "):
        op(tf.ones([4, 2, 2, 1]), [[2, 2]], [[0, 0], [0, 0]])
    with pytest.raises(ValueError, match="Shapes must be equal rank, but are 1 and 2"):
        op(tf.ones([4, 2, 2, 1]), [2, 2], [0, 0])


def test_batch_to_space_nd_divides_the_batch_one_block_dimension_at_a_time():
    with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 2 but is 3"):
        tf.batch_to_space_nd(tf.ones([3, 3, 2, 1]), [2, 2], [[0, 0], [0, 0]])


def test_v1_batch_to_space_always_makes_an_int64_square_block_and_a_4d_result():
    t = tf.batch_to_space(tf.ones([4, 1, 1, 1]), [[0, 0], [0, 0]], np.int32(2))
    assert t.op.inputs[1].dtype == tf.int64 and t.shape.as_list() == [1, 2, 2, 1]
    with pytest.raises(ValueError, match=r"Shape \(1, 2, 2\) must have rank 4$"):
        tf.batch_to_space(tf.ones([4, 1, 1]), [[0, 0], [0, 0]], 2)


def test_stateless_shuffle_is_tf_fisher_yates_from_the_seed_key_and_counter():
    g = tf.Graph()
    with g.as_default():
        rows = tf.random.experimental.stateless_shuffle(tf.reshape(tf.range(12), [6, 2]), seed=[3, 4])
        assert rows.op.name == "stateless_shuffle/StatelessShuffle"
        long = tf.random.experimental.stateless_shuffle(tf.range(40), seed=tf.constant([3, 4], tf.int64))
        short = tf.random.experimental.stateless_shuffle(tf.range(6), seed=[1, 2])
        scalar = tf.random.experimental.stateless_shuffle(5, seed=[3, 4])
        with tf.Session() as sess:
            rows, long, short, scalar = sess.run([rows, long, short, scalar])
    assert rows.tolist() == [[2, 3], [6, 7], [8, 9], [0, 1], [10, 11], [4, 5]]
    assert long.tolist() == [3, 35, 6, 16, 7, 39, 32, 4, 2, 17, 8, 1, 37, 18, 20, 10, 22, 30, 26, 33, 14, 34, 24,
                             11, 9, 27, 28, 31, 25, 29, 13, 0, 5, 36, 15, 19, 23, 12, 21, 38]
    assert short.tolist() == [4, 5, 0, 3, 1, 2] and scalar == 5


def test_index_shuffle_pads_a_two_word_seed_in_front():
    assert _run(tf.random.experimental.index_shuffle(3, [5, 8], 9)) == 1
    assert _run(tf.random.experimental.index_shuffle(tf.range(4), [5, 9], 3)).tolist() == [2, 0, 1, 3]
    # TF pads the first dimension, so a batch of seeds never reaches the op in shape [n, 3]
    with pytest.raises(ValueError, match=r"Seed must have shape \[3\] or \[n, 3\] but got \[3, 2\]\. for"):
        tf.random.experimental.index_shuffle([0, 1], [[5, 9], [1, 2]], [3, 3])
    with pytest.raises(ValueError, match=r"Seed must have shape \[3\] or \[n, 3\] but got \[-1\]\. for"):
        tf.raw_ops.RandomIndexShuffle(index=1, seed=tf.placeholder(tf.int32, [None]), max_index=4)


def test_half_sigmoid_is_eigen_generic_logistic_rounded_each_step():
    x = np.float16([0.2998046875, -17.3, 11.0, -10.16, 20.0])
    assert _run(tf.sigmoid(x)).tolist() == [0.57421875, 5.960464477539063e-08, 1.0,
                                            3.886222839355469e-05, 1.0]


def test_float_to_uint32_tail_goes_through_int64_as_eigen_scalar_loop():
    """Packets of 8 saturate out-of-range values to 2**31; the last size % 8 wrap through int64 (NaN to 0)."""
    x = np.full(9, 5e9, np.float32)
    x[0] = -1.0
    assert _run(tf.cast(x, tf.uint32)).tolist() == [4294967295] + [2147483648] * 7 + [705032704]
    assert _run(tf.cast(np.float32([5e9, np.nan, 3.9]), tf.uint32)).tolist() == [705032704, 0, 3]
    assert _run(tf.cast(np.full(8, np.nan, np.float32), tf.uint32)).tolist() == [2147483648] * 8


def test_regex_matches_utf8_text_by_character_with_ascii_classes():
    assert _run(tf.strings.regex_replace(["héllo"], "h.l", "X")).tolist() == [b"Xlo"]
    assert _run(tf.strings.regex_replace(["héllo"], "[^l]", "*")).tolist() == [b"**ll*"]
    assert _run(tf.strings.regex_replace(["héllo"], "(é)(l+)", r"\2\1\0")).tolist() == ["hllééllo".encode()]
    assert _run(tf.strings.regex_full_match(["é"], tf.constant("."))).tolist() == [True]
    assert _run(tf.strings.regex_full_match(["a1", "é1", "A_"], r"\w\d")).tolist() == [True, False, False]


def test_regex_rewrite_naming_a_missing_group_replaces_nothing():
    assert _run(tf.strings.regex_replace(["abc"], "(a)", r"\2")).tolist() == [b"abc"]
    assert _run(tf.strings.regex_replace(["abc"], "b", r"\1", replace_global=False)).tolist() == [b"abc"]


def _fed_sparse(indices, values, shape):
    """A SparseTensor whose parts are known only when run, so the kernels do the checking."""
    return tf.SparseTensor(tf.placeholder_with_default(tf.constant(indices, tf.int64), None),
                           tf.placeholder_with_default(tf.constant(values, tf.float32), None),
                           tf.placeholder_with_default(tf.constant(shape, tf.int64), None))


@pytest.mark.parametrize("build, message", [
    (lambda: tf.sparse.slice(_fed_sparse([[0, 1]], [1.0], [2, 2]), [0, 0], [1, -3]).indices,
     "Expected a non-negative size, got -3"),
    (lambda: tf.sparse.to_dense(_fed_sparse([[0, 0]], [1.0], [-1, 2])), "Dimension -1 must be >= 0"),
    (lambda: tf.sparse.split(sp_input=_fed_sparse([[0, 1]], [1.0], [2, 3]), num_split=4, axis=1)[0].indices,
     r"Input num_split should be between 1 and the splitting dimension size \(3\), got 4"),
])
def test_sparse_kernel_messages(build, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _run(build())


def test_sparse_concat_is_not_differentiable():
    x = tf.constant([5.0, 6.0])
    concat = tf.sparse.concat(0, [tf.SparseTensor([[0, 0]], x[:1], [1, 2]), tf.SparseTensor([[0, 1]], x[1:], [1, 2])])
    assert tf.gradients(concat.values, x) == [None]


def test_unsorted_segment_num_segments_must_be_non_negative_at_build():
    with pytest.raises(ValueError, match="Dimension size, given by scalar input 2, must be non-negative but is -1"):
        tf.math.unsorted_segment_sum([1.0, 2.0], [0, 1], -1)


def test_histogram_fixed_width_messages():
    with pytest.raises(ValueError, match="Requires nbins > 0: 0 for '"):
        tf.histogram_fixed_width([1.0], [0.0, 1.0], nbins=0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"value_range should satisfy value_range\[0\] < value_range\[1\], but got '\[1, 0\]'"):
        _run(tf.histogram_fixed_width([1.0], [1.0, 0.0], nbins=3))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Histogram values must not contain NaN"):
        _run(tf.histogram_fixed_width([np.nan, 1.0], [0.0, 1.0], nbins=3))


def test_complex_reciprocal_is_eigens_division_of_one():
    """Recorded from TF 2.21: 1/(1+0j) keeps a +0 imaginary part (NumPy's reciprocal gives -0), 1/inf is nan."""
    z = tf.constant(np.array([1 + 0j, 2 - 3j, complex(np.inf, 0), complex(-1, 0.0)], np.complex64))
    for fetch in (tf.math.reciprocal(z), tf.raw_ops.Inv(x=z)):
        got = _run(fetch)
        assert str(got.tolist()) == str([(1 + 0j), complex(0.15384615957736969, 0.23076923191547394),
                                         complex(np.nan, np.nan), complex(-1, -0.0)])
        assert np.signbit(got.imag[[0, 1, 3]]).tolist() == [False, False, True]


def test_complex_division_as_eigen_packets_scale_the_divisor():
    """(3+4j) / 5 is TF's exact 0.6+0.8j (tf.sign divides by the magnitude so); NumPy's gives 0.6000000000000001."""
    assert _run(tf.sign(tf.constant([3 + 4j, 0j]))).tolist() == [(0.6 + 0.8j), 0j]
    x = tf.constant([np.inf + 0j, 1 + 0j, np.nan + 0j, 0j])
    y = tf.constant([1 + 1j, np.inf + 0j, 1 + 0j, 0j])
    assert str(_run(x / y).tolist()) == str([complex(np.inf, -np.inf)] + [complex(np.nan, np.nan)] * 3)


def test_complex_division_tail_is_c99_division():
    """Recorded from TF 2.21: Eigen's packets (4 complex64, 2 complex128) give nan+nanj for a zero or infinite
    divisor; the last size % packet elements (its scalar loop) divide as C: (1+2j)/0 = inf+infj,
    1/0 = inf+nanj, (1+2j)/inf = 0. Xdivy and DivNoNan (but for its zero divisors) divide the same way."""
    inf, nan = np.inf, np.nan
    for dtype, n, packet in ((tf.complex64, 6, 4), (tf.complex128, 3, 2)):
        x = tf.placeholder(dtype)
        y = tf.placeholder(dtype)
        divisors = np.zeros(n, complex)
        divisors[::2] = inf
        feed = {x: np.full(n, 1 + 2j), y: divisors}
        div, realdiv, xdivy, no_nan, recip = _run(
            [x / y, tf.raw_ops.RealDiv(x=x, y=y), tf.math.xdivy(x, y), tf.math.divide_no_nan(x, y),
             tf.math.reciprocal(y)], feed)
        assert str(div.tolist()) == str([complex(nan, nan)] * packet + [0j, complex(inf, inf)][:n - packet])
        assert str(realdiv.tolist()) == str(div.tolist()) == str(xdivy.tolist())
        assert str(recip.tolist()) == str([complex(nan, nan)] * packet
                                          + [0j, complex(inf, nan)][:n - packet])
        assert str(no_nan.tolist()) == str([complex(nan, nan), 0j] * (packet // 2) + [0j] * (n - packet))
    got = _run(tf.math.xdivy(tf.constant([1 + 2j, -3j]), tf.constant([1e300 + 1e300j] * 2)))
    assert got.tolist() == [complex(1.4999999999999998e-300, 5e-301),
                            complex(-1.4999999999999998e-300, -1.4999999999999998e-300)]


def test_gather_nd_with_empty_index_rows_takes_the_whole_params_per_row():
    out = _run(tf.gather_nd(tf.reshape(tf.range(6), [2, 3]), tf.zeros([2, 0], tf.int32)))
    assert out.tolist() == [[[0, 1, 2], [3, 4, 5]]] * 2


def _fed(value, dtype=tf.float32):
    return tf.placeholder_with_default(tf.constant(value, dtype), None)


@pytest.mark.parametrize("tensor, indices, updates, message", [
    (np.zeros([2, 3]), [[0]], [[1.0, 2.0]],
     r"The inner 1 dimensions of output.shape=\[2,3\] must match the inner 1 dimensions of updates.shape=\[1,2\]"),
    (np.zeros([0, 3]), [[0]], [[1.0, 2.0, 3.0]], "Indices and updates specified for empty output shape"),
    (np.zeros([2, 3]), [[[0]]], [1.0, 2.0, 3.0],
     r"Outer dimensions of indices and update must match. Indices shape: \[1,1,1\], updates shape:\[3\]"),
    (np.zeros([2, 3, 4]), [[0, 0, 0, 0]], [1.0], r"Inner dimensions of output shape must match inner dimensions of "
                                                 r"updates shape. Output: \[2,3,4\] updates: \[1\]"),
    (np.zeros([3]), [1], 5.0, r"Updates shape must have rank at least one. Found:\[\]"),
])
def test_tensor_scatter_kernel_messages(tensor, indices, updates, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _run(tf.tensor_scatter_nd_update(_fed(tensor), _fed(indices, tf.int32), _fed(updates)))


def test_tensor_scatter_add_has_no_string_or_bool_kernel_and_max_no_complex():
    for build, op in ((lambda: tf.tensor_scatter_nd_add(tf.constant(["a", "b"]), [[1]], ["z"]), "TensorScatterAdd"),
                      (lambda: tf.tensor_scatter_nd_max(tf.constant([1j, 2]), [[1]], tf.constant([1j])),
                       "TensorScatterMax")):
        with tf.Graph().as_default():
            with pytest.raises(tf.errors.InvalidArgumentError, match=f"No OpKernel was registered to support Op '{op}'"):
                _run(build())
    with tf.Graph().as_default():
        assert _run(tf.tensor_scatter_nd_update(tf.constant([True, False]), [[1]], [True])).tolist() == [True, True]


def test_no_kernel_message_lists_kernels_in_tf_registry_order_ending_with_a_newline():
    with pytest.raises(tf.errors.InvalidArgumentError) as raised:
        _run(tf.raw_ops.SparseDenseCwiseDiv(sp_indices=tf.constant([[0]], tf.int64), sp_values=tf.constant([1j]),
                                            sp_shape=tf.constant([1], tf.int64), dense=tf.constant([1j])))
    listed = raised.value.message.split("Registered kernels:\n")[1]
    assert listed.startswith("  device='CPU'; T in [DT_DOUBLE]\n  device='CPU'; T in [DT_FLOAT]\n")
    assert listed.split("\n\t")[0].endswith("T in [DT_UINT64]\n")


def test_scalar_inputs_checked_on_their_values_as_tf():
    """TopKV2, OneHot and NthElement check k/depth/n as TF's MakeDimForScalarInput does (on a known value
    only); MatrixBandPart's shape function is TF's UnchangedShape. The kernels say the rest (recorded from TF)."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(ValueError, match=r"^Input must be scalar but has rank 2 for '.*computed input tensors: "
                                         r"input\[1\] = <\[1\]>\.$"):
        tf.nn.top_k(x, [[1]])
    fed = tf.placeholder_with_default([1], [1])
    assert tf.nn.top_k(x, fed).values.shape.as_list() == [2, None]
    assert tf.linalg.band_part(tf.placeholder(tf.float32, [3]), fed, 1).shape.as_list() == [3]
    for build, message in (
            (lambda: tf.nn.top_k(x, fed), "k must be scalar, got shape [1]"),
            (lambda: tf.one_hot([1], fed), "depth must be a scalar, but got: [1]"),
            (lambda: tf.raw_ops.NthElement(input=x, n=fed), "N must be scalar but has rank 1"),
            (lambda: tf.linalg.band_part(x, fed, 1), "num_lower must be scalar, got shape [1]"),
            (lambda: tf.linalg.band_part(x[0], 1, 1), "input must be at least 2-dim, received shape: [3]")):
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            _run(build())
        assert runtime_message(info.value).split("\n")[0] == message
