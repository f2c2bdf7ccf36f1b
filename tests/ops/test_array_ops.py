"""Array ops: slicing (`Tensor.__getitem__`, StridedSlice), Pack/Unpack, ConcatV2, ExpandDims, Squeeze,
Transpose, Where, GatherV2, boolean_mask, Slice, Tile, OneHot, and Equal/NotEqual/Range from math_ops.

Values are checked against NumPy (or TF's results, recorded), every static shape against the shape the
kernel produces, by `check_op` (on every device) or `check_tensor` (for a graph the test inspects); op names, attrs, error classes and messages are literals recorded from TensorFlow 2.21
(`tf.compat.v1`, graph mode).
"""

import re

import numpy as np
import pytest
from op_testing import check_op, check_tensor, runtime_message

import tensorweave.compat.v1 as tf

X = np.arange(24).reshape(2, 3, 4)


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def graph_ops():
    return [(op.name, op.type) for op in tf.get_default_graph().get_operations()]


def run_error(fetches, feed_dict=None):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        run(fetches, feed_dict)
    return runtime_message(info.value).split("\n")[0]


# -- Tensor.__getitem__ and StridedSlice -------------------------------------------------------------

SPECS = [1, -1, (1, 2), (-1, slice(None, None, 2)), (Ellipsis, 1), (slice(None), None, slice(1, 3)),
         (slice(None, None, -1), slice(None, None, -2)), (slice(1, None), None, Ellipsis, 0),
         (slice(10, 20),), (slice(-10, None, -1),), (slice(2, -10, -1), Ellipsis, slice(None, None, -3)),
         (Ellipsis, None), (None, Ellipsis), (slice(None), slice(None), None, Ellipsis, 2, None),
         (slice(-7, None), slice(1, -1)), (1, slice(3, 0, -2), slice(-1, -5, -1))]


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_getitem_matches_numpy_with_exact_static_shape(spec):
    check_op(lambda x: x[spec], [X], X[spec])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_, np.complex64])
def test_getitem_dtypes(dtype):
    x = X.astype(dtype)
    check_op(lambda t: t[1, ::-2, 1:], [x], x[1, ::-2, 1:])


def test_getitem_strings_and_list_spec():
    words = np.array([[b"a", b"bc"], [b"d", b""]], dtype=object)
    check_tensor(tf.constant(words)[:, 1], words[:, 1])
    check_tensor(tf.constant(X)[[1, 2]], X[1, 2])  # a list is a tuple of indices, not a gather


def test_getitem_graph_matches_tf():
    x = tf.constant(X, dtype=tf.float32)
    i = tf.placeholder(tf.int32, [])
    y = x[1:, None, ..., i]
    assert str(y) == 'Tensor("strided_slice:0", shape=(?, 1, 3), dtype=float32)'
    assert [(n, t) for n, t in graph_ops() if n != "Const"] == [
        ("Placeholder", "Placeholder"), ("add/y", "Const"), ("add", "AddV2"),
        ("strided_slice/stack/0", "Const"), ("strided_slice/stack/1", "Const"), ("strided_slice/stack/2", "Const"),
        ("strided_slice/stack", "Pack"), ("strided_slice/stack_1/0", "Const"), ("strided_slice/stack_1/1", "Const"),
        ("strided_slice/stack_1/2", "Const"), ("strided_slice/stack_1", "Pack"), ("strided_slice/stack_2", "Const"),
        ("strided_slice", "StridedSlice")]
    attrs = y.op._node_def.attr
    assert (attrs["begin_mask"], attrs["end_mask"], attrs["ellipsis_mask"], attrs["new_axis_mask"],
            attrs["shrink_axis_mask"]) == (0, 1, 4, 2, 8)
    assert [t.name for t in y.op.inputs] == ["Const:0", "strided_slice/stack:0", "strided_slice/stack_1:0",
                                            "strided_slice/stack_2:0"]
    check_tensor(x[::-1, ::-2], X[::-1, ::-2].astype(np.float32))
    check_tensor(y, X[1:, None, ..., 2].astype(np.float32), {i: 2}, fully_defined=False)


def test_getitem_tensor_indices_and_int64_casts():
    x = tf.constant(X)
    y = x[tf.constant(1, tf.int64)]
    assert y.op._node_def.attr["Index"] == tf.int64 and y.op.inputs[3].op.type == "Pack"
    z = x[1:tf.constant(2, tf.int64)]
    assert z.op.inputs[1].name == "strided_slice_1/Cast:0" and z.shape.as_list() == [1, 3, 4]
    check_tensor(y, X[1])
    check_tensor(z, X[1:2])
    check_tensor(x[np.int64(1)], X[1])
    b = tf.placeholder(tf.int32, [None])
    w = x[:, b[0]:b[1]:2]
    assert w.shape.as_list() == [2, None, 4]
    check_tensor(w, X[:, 0:3:2], {b: [0, 3]}, fully_defined=False)


def test_getitem_partial_shapes():
    p = tf.placeholder(tf.float32)
    assert p[1].shape.ndims is None and p[1:, None].shape.ndims is None
    p2 = tf.placeholder(tf.float32, [None, None])
    assert p2[1:, 0].shape.as_list() == [None] and p2[::-1].shape.as_list() == [None, None]
    p3 = tf.placeholder(tf.float32, [None, 4])
    assert p3[:, 1:3].shape.as_list() == [None, 2] and p3[:, -7:].shape.as_list() == [None, 4]
    assert p3[:, ::-1].shape.as_list() == [None, 4]


@pytest.mark.parametrize("spec, error, message", [
    (5, ValueError, "slice index 5 of dimension 0 out of bounds."),
    (-5, ValueError, "slice index -3 of dimension 0 out of bounds."),
    ((1, 2, 3, 4), ValueError, "Index out of range using input dim 3; input has only 3 dims"),
    ((Ellipsis, Ellipsis), ValueError, "Multiple ellipses in slice spec not allowed"),
    (slice(None, None, 0), ValueError, "strides[0] must be non-zero"),
    (1.5, TypeError, "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                     "tf.int32/tf.int64 tensors are valid indices, got 1.5"),
])
def test_getitem_errors_while_building(spec, error, message):
    with pytest.raises(error) as info:
        tf.constant(X)[spec]
    assert str(info.value).startswith(message)


def test_getitem_index_type_errors():
    x = tf.constant(X)
    with pytest.raises(TypeError, match="valid indices, got <tf.Tensor 'Const_1:0' shape=\\(1,\\) dtype=int32>"):
        x[tf.constant([1])]
    with pytest.raises(TypeError, match="valid indices, got <tf.Tensor 'Const_2:0' shape=\\(\\) dtype=float32>"):
        x[tf.constant(1.0)]
    with pytest.raises(ValueError, match="^Attempting to slice scalar input."):
        tf.constant(3)[0]


@pytest.mark.parametrize("make, feed, message", [
    (lambda p, i: p[i], {"p": np.zeros((3, 2)), "i": 5}, "slice index 5 of dimension 0 out of bounds."),
    (lambda p, i: p[i], {"p": np.zeros((3, 2)), "i": -4}, "slice index -1 of dimension 0 out of bounds."),
    (lambda p, i: p[1, 2, 3], {"p": np.zeros((3, 2))}, "Index out of range using input dim 2; input has only 2 dims"),
    (lambda p, i: p[1], {"p": 1.0}, "Attempting to slice scalar input."),
    (lambda p, i: p[::i], {"p": np.zeros(3), "i": 0}, "strides[0] must be non-zero"),
    (lambda p, i: tf.strided_slice(p, [0], [1], i, shrink_axis_mask=1), {"p": np.zeros(3), "i": [-1]},
     "only stride 1 allowed on non-range indexing."),
    (lambda p, i: tf.strided_slice(p, i, [1, 2]), {"p": np.zeros(3), "i": [0]},
     "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [1], [2], and [1] instead."),
])
def test_getitem_errors_when_run(make, feed, message):
    p, i = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    fetch = make(p, i)
    values = {"p": p, "i": i}
    assert run_error(fetch, {values[k]: v for k, v in feed.items()}) == message


def test_getitem_runtime_bounds_clamp_like_numpy():
    p, i, j = tf.placeholder(tf.float64), tf.placeholder(tf.int32), tf.placeholder(tf.int32)
    xs = np.arange(6.0).reshape(3, 2)
    check_tensor(p[i:j], xs[-2:100], {p: xs, i: -2, j: 100}, fully_defined=False)
    check_tensor(p[i:j:-1], xs[100:-100:-1], {p: xs, i: 100, j: -100}, fully_defined=False)
    check_tensor(p[..., i, None], xs[..., -1, None], {p: xs, i: -1}, fully_defined=False)
    check_tensor(p[::-1, i], xs[::-1, 1], {p: xs, i: 1}, fully_defined=False)


def test_getitem_boolean_spec_is_boolean_mask():
    x = tf.constant(X)
    y = x[x > 3]
    assert y.name == "boolean_mask/GatherV2:0" and y.shape.as_list() == [None]
    check_tensor(y, X[X > 3], fully_defined=False)
    with pytest.raises(ValueError, match="^mask cannot be scalar.$"):
        x[True]


def test_variable_getitem_and_strided_slice_wrapper():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="v")
    first = v[0]
    assert first.op.inputs[0].name == "v/read:0" and first.shape.as_list() == [2]
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(first), [1.0, 2.0])
        assert sess.run(v[-1, -1]) == 4.0
    x = tf.constant(X)
    s = tf.strided_slice(x, [0], [1])
    assert s.name == "StridedSlice:0" and s.op.inputs[1].name == "StridedSlice/begin:0"
    check_tensor(s, X[0:1])
    check_tensor(tf.strided_slice(x, [2, 0], [0, 3], [-1, 2], name="foo"), X[2:0:-1, 0:3:2])
    with pytest.raises(ValueError, match=r"^Dimension 0 in both shapes must be equal, but are 2 and 1. Shapes are "
                                         r"\[2\] and \[1\]. for "):
        tf.strided_slice(x, [0, 0], [1])


# -- Pack (stack) and auto-packing, Unpack (unstack) --------------------------------------------------

def test_stack_of_constants_is_a_const_and_tensors_pack():
    assert tf.stack([1, 2]).op.type == "Const"
    s = tf.stack([tf.constant(1), 2], axis=0)
    assert graph_ops()[-3:] == [("Const", "Const"), ("stack_1/1", "Const"), ("stack_1", "Pack")]
    check_tensor(s, np.array([1, 2], np.int32))
    t = tf.stack([tf.constant([1]), [2]], axis=1)
    assert t.op.inputs[1].name == "stack_2/values_1:0"
    check_tensor(t, np.array([[1, 2]], np.int32))
    e = tf.stack([])
    assert e.op.type == "Const" and e.dtype == tf.float32 and e.shape.as_list() == [0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_, np.uint8])
@pytest.mark.parametrize("axis", [0, 1, -1, 2])
def test_stack_values(dtype, axis):
    a, b = X[0].astype(dtype), X[1].astype(dtype)
    check_op(lambda a, b: tf.stack([a, b], axis=axis), [a, b], np.stack([a, b], axis=axis))


def test_auto_packing_conversion():
    check_tensor(tf.convert_to_tensor([tf.constant(1), 2]), np.array([1, 2], np.int32))
    assert graph_ops()[-3:] == [("Const", "Const"), ("packed/1", "Const"), ("packed", "Pack")]
    f = tf.convert_to_tensor([tf.constant(1), 2], dtype=tf.float32)
    assert f.dtype == tf.float32 and f.op.inputs[0].op.type == "Cast"
    nested = tf.convert_to_tensor([[tf.constant(1), 2], [3, 4]])
    assert [n for n, _ in graph_ops()[-5:]] == ["Const_2", "packed_2/0/1", "packed_2/0", "packed_2/1_1", "packed_2"]
    check_tensor(nested, np.array([[1, 2], [3, 4]], np.int32))
    with pytest.raises(TypeError, match="^Expected int32, but got 2.5 of type 'float'.$"):
        tf.convert_to_tensor([tf.constant(1), 2.5])
    v = tf.Variable([1, 2], name="v")
    packed = tf.stack([v, v])
    assert [t.name for t in packed.op.inputs] == ["v/read:0", "v/read:0"]


def test_stack_errors():
    with pytest.raises(ValueError, match=r"^Argument `axis` = 3 not in range \[-2, 2\)$"):
        tf.stack([tf.constant([1]), [2]], axis=3)
    with pytest.raises(ValueError, match=r"^Dimension 0 in both shapes must be equal, but are 1 and 2. Shapes are "
                                         r"\[1\] and \[2\].\n\tFrom merging shape 0 with other shapes. for "):
        tf.stack([tf.constant([1]), [2, 3]])
    with pytest.raises(TypeError, match=r"^Tensors in list passed to 'values' of 'Pack' Op have types "
                                        r"\[int32, float32\] that don't all match.$"):
        tf.stack([tf.constant(1), 2.0])
    p = tf.placeholder(tf.float32)
    assert tf.stack([p, p]).shape.ndims is None
    assert tf.stack([tf.placeholder(tf.float32, [None, None]), tf.placeholder(tf.float32, [None, 4])],
                    axis=-1).shape.as_list() == [None, 4, 2]
    assert run_error(tf.stack([p, tf.identity(p)[1:]]), {p: np.zeros((3, 2))}) == (
        "Shapes of all inputs must match: values[0].shape = [3,2] != values[1].shape = [2,2]")
    assert run_error(tf.stack([p, p], axis=3), {p: np.zeros((3, 2))}) == "axis = 3 not in [-3, 3)"


def test_unstack():
    x = tf.constant(X)
    parts = tf.unstack(x, axis=-1)
    assert [t.name for t in parts] == [f"unstack:{i}" for i in range(4)]
    for part, expected in zip(parts, np.moveaxis(X, -1, 0)):
        check_tensor(part, expected)
    assert run(tf.unstack(tf.zeros([0, 2]))) == []
    p = tf.placeholder(tf.float32, [None, 2])
    assert [t.shape.as_list() for t in tf.unstack(p, axis=1)] == [[None], [None]]
    with pytest.raises(ValueError, match=r"^Cannot infer argument `num` from shape \(\?, 2\)$"):
        tf.unstack(p)
    with pytest.raises(ValueError, match="^Cannot infer argument `num` from shape <unknown>$"):
        tf.unstack(tf.placeholder(tf.float32))
    with pytest.raises(ValueError, match=r"^Argument `axis` = 3 not in range \[-3, 3\)$"):
        tf.unstack(x, axis=3)
    with pytest.raises(ValueError, match="^Dimension must be 3 but is 2 for "):
        tf.unstack(x, num=3)
    f = tf.placeholder(tf.float32)
    assert run_error(tf.unstack(f, num=2), {f: np.zeros((3, 2))}) == "Input shape axis 0 must equal 2, got shape [3,2]"
    assert run_error(tf.unstack(f, num=2, axis=5), {f: np.zeros((3, 2))}) == "axis = 5 not in [-2, 2)"


def test_unstack_of_one_is_the_slice_itself():
    p = tf.placeholder(tf.int32)
    check_tensor(tf.unstack(tf.constant([[1, 2]]))[0], np.array([1, 2], np.int32))  # constant-folded
    assert run(tf.unstack(p, num=1), {p: [[1, 2]]})[0].tolist() == [1, 2]  # executed


# -- Split, SplitV, IdentityN ------------------------------------------------------------------------
X34 = np.arange(12, dtype=np.float32).reshape(3, 4)


def test_split_into_equal_pieces():
    parts = tf.split(X34, 2, axis=1)
    assert [t.name for t in parts] == ["split:0", "split:1"]
    assert parts[0].op.type == "Split" and parts[0].op.inputs[0].name == "split/split_dim:0"
    for part, expected in zip(parts, np.split(X34, 2, axis=1)):
        check_tensor(part, expected)
    check_tensor(tf.split(X34, 1, 0)[0], X34)
    p = tf.placeholder(tf.float32, [None, 4])
    pieces = tf.split(p, 3, 0)
    assert [t.shape.as_list() for t in pieces] == [[None, 4]] * 3
    assert [v.shape for v in run(pieces, {p: np.zeros((6, 4))})] == [(2, 4)] * 3
    axis = tf.placeholder(tf.int32, [])
    dynamic = tf.split(X34, 2, axis)
    assert [t.shape.as_list() for t in dynamic] == [[None, None]] * 2
    assert run(dynamic, {axis: -1})[1].tolist() == [[2, 3], [6, 7], [10, 11]]
    assert tf.split(tf.placeholder(tf.float32), 2)[0].shape.ndims is None
    assert [v.shape for v in run(tf.split(np.zeros((0, 3)), 3, 1))] == [(0, 1)] * 3


def test_split_errors():
    with pytest.raises(ValueError, match="^Dimension size must be evenly divisible by 3 but is 4\n\tNumber of ways "
                                         "to split should evenly divide the split dimension for "):
        tf.split(X34, 3, axis=1)
    with pytest.raises(ValueError, match=r"^Dimension size, given by scalar input 2 must be in range \[-2, 2\) "):
        tf.split(X34, 5, axis=2)
    with pytest.raises(ValueError, match=r"^Dimension size, given by scalar input 0 must be in range \[-0, 0\) "):
        tf.split(tf.constant(3.0), 1, 0)
    with pytest.raises(ValueError, match="^Attr 'num_split' of 'Split' Op passed 0 less than minimum 1.$"):
        tf.split(X34, 0, 0)
    p = tf.placeholder(tf.float32, [None, 4])
    assert run_error(tf.split(p, 3, 0), {p: np.zeros((4, 4))}) == (
        "Number of ways to split should evenly divide the split dimension, but got split_dim 0 (size = 4) and "
        "num_split 3")
    axis = tf.placeholder(tf.int32, [])
    assert run_error(tf.split(X34, 2, axis), {axis: -3}) == (
        "-input rank(-2) <= split_dim < input rank (2), but got -3")


def test_split_by_sizes():
    parts = tf.split(X34, [1, -1, 1], 1)
    assert [t.name for t in parts] == ["split:0", "split:1", "split:2"]
    assert parts[0].op.type == "SplitV" and parts[0].op.get_attr("Tlen") == tf.int32
    assert [t.name for t in parts[0].op.inputs] == ["split/value:0", "Const:0", "split/split_dim:0"]
    for part, expected in zip(parts, np.split(X34, [1, 3], axis=1)):
        check_tensor(part, expected)
    wide = tf.split(X34, np.array([1, 3], dtype=np.int64), axis=-1, num=2)
    assert wide[0].op.get_attr("Tlen") == tf.int64
    check_tensor(wide[1], X34[:, 1:])
    p = tf.placeholder(tf.float32, [None, 4])
    assert [t.shape.as_list() for t in tf.split(p, [-1, 2], axis=0)] == [[None, 4], [2, 4]]
    sizes = tf.placeholder(tf.int32, [2])
    by_fed_sizes = tf.split(X34, sizes, axis=1)
    assert [t.shape.as_list() for t in by_fed_sizes] == [[3, None], [3, None]]
    assert [v.shape for v in run(by_fed_sizes, {sizes: [3, 1]})] == [(3, 3), (3, 1)]
    assert [v.shape for v in run(tf.split(np.zeros((2, 3)), [0, 3], 1))] == [(2, 0), (2, 3)]


def test_split_by_sizes_errors():
    with pytest.raises(ValueError, match=r"^can't split axis of size 4 into pieces of size \[1,2\] for "):
        tf.split(X34, [1, 2], 1)
    with pytest.raises(ValueError, match="^size_splits can only have one -1 for "):
        tf.split(tf.placeholder(tf.float32, [None, 4]), [-1, -1], 0)
    with pytest.raises(ValueError, match="^Rank-0 tensors are not supported as the num_or_size_splits argument "
                       r"to split. Argument provided: Tensor\(\"Const_2:0\", shape=\(\), dtype=int32\)$"):
        tf.split(X34, tf.constant(2))
    with pytest.raises(ValueError, match=r"^Cannot infer argument `num` from shape Tensor\(\"Placeholder_1:0\", "):
        tf.split(X34, tf.placeholder(tf.int32, [None]))
    sizes = tf.placeholder(tf.int32, [2])
    parts = tf.split(X34, sizes, 1)
    determined = ("Determined shape must either match input shape along split_dim exactly if fully specified, or be "
                  "less than the size of the input along split_dim if not fully specified.  Got: ")
    assert run_error(parts, {sizes: [-1, -1]}) == "There can only be one -1 in the input."
    assert run_error(parts, {sizes: [5, -1]}) == determined + "5"
    assert run_error(parts, {sizes: [1, 1]}) == determined + "2"
    assert run_error(parts, {sizes: [-2, 6]}) == "Split size at index 0 must be >= 0. Got: -2"


def test_split_by_sizes_static_errors_in_tfs_order():
    """TF's SplitV shape function: a size that comes out negative (a -1 left nothing) fails before the total,
    and an error names the sizes among the computed inputs (its first pass asked for them)."""
    x = np.zeros((2, 3), np.float32)
    for sizes, message in (([4, -1], "Split size at index 1 must be >= 0. Got: -1"),
                           ([-2, 5], "Split size at index 0 must be >= 0. Got: -2")):
        with pytest.raises(ValueError, match=rf"^{re.escape(message)} for "):
            tf.split(x, sizes, 1)
    with pytest.raises(ValueError, match=r"^Dimension size, given by scalar input 5 must be in range \[-2, 2\) for .* "
                                         r"and with computed input tensors: input\[1\] = <2 1>, input\[2\] = <5>\.$"):
        tf.split(x, [2, 1], 5)
    with pytest.raises(ValueError, match="^Can't split scalars for "):
        tf.split(np.float32(1), [1], 0)


def test_identity_n():
    parts = tf.identity_n([tf.constant(1), tf.constant([2.0])])
    assert [t.name for t in parts] == ["IdentityN:0", "IdentityN:1"]
    assert parts[0].op.type == "IdentityN" and [t.dtype for t in parts] == [tf.int32, tf.float32]
    check_tensor(parts[0], np.int32(1))
    check_tensor(parts[1], np.array([2.0], np.float32))
    check_tensor(tf.identity_n([tf.constant([3])])[0], np.array([3], np.int32))
    with pytest.raises(ValueError, match="^Attr 'T' of 'IdentityN' Op passed list of length 0 less than minimum 1.$"):
        tf.identity_n([])


# -- ConcatV2 ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.complex128])
def test_concat_values(axis, dtype):
    a = X.astype(dtype)
    b = np.ones_like(a)
    check_op(lambda a, b: tf.concat([a, b, a], axis), [a, b], np.concatenate([a, b, a], axis=axis))


def test_concat_graph():
    x = tf.constant(X)
    single = tf.concat([x], 0)
    assert single.name == "concat/concat:0" and single.op.type == "Identity"
    assert tf.concat(x, 0).op.type == "Identity"
    both = tf.concat([x, x], 0)
    assert both.op.type == "ConcatV2" and both.op.inputs[2].name == "concat_2/axis:0"
    assert tf.concat([x, tf.placeholder(tf.int64, [None, None, 2])], 2).shape.as_list() == [2, 3, 6]
    assert tf.concat([x, x], tf.placeholder(tf.int32)).shape.as_list() == [None, None, None]
    assert tf.concat([x, tf.placeholder(tf.int64)], 1).shape.as_list() == [2, None, 4]
    assert tf.concat([tf.placeholder(tf.float32), tf.placeholder(tf.float32)], 1).shape.ndims is None
    assert tf.concat([tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [2, None])],
                     0).shape.as_list() == [None, 3]


@pytest.mark.parametrize("values, axis, message", [
    (lambda x: [x, x], 3, "Shape must be at least rank 4 but is rank 3"),
    (lambda x: [x, x[0]], 0, "Shape must be rank 3 but is rank 2"),
    (lambda x: [x, x[0]], 5, "Shape must be rank 3 but is rank 2"),
    (lambda x: [x, x[:, :2]], 0, "Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes are [3,4] and "
                                 "[2,4]."),
    (lambda x: [x, [1]], 0, "Shape must be rank 3 but is rank 1"),
    (lambda x: [1, 2], 0, "Can't concatenate scalars (use tf.stack instead)"),
    (lambda x: [tf.constant([2]), tf.constant(1)], 0, "Shape must be rank 1 but is rank 0"),
    (lambda x: [x, x], lambda: tf.constant([0]), "Shape must be rank 0 but is rank 1"),
])
def test_concat_errors_while_building(values, axis, message):
    with pytest.raises(ValueError) as info:
        tf.concat(values(tf.constant(X)), axis() if callable(axis) else axis)
    assert str(info.value).startswith(message + " for ")


def test_concat_errors_when_run():
    f, i = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    z = np.zeros((3, 2))
    assert run_error(tf.concat([f, f], i), {f: z, i: 2}) == (
        "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2")
    assert run_error(tf.concat([f, tf.identity(f)[1:]], 1), {f: z}) == (
        "ConcatOp : Dimension 0 in both shapes must be equal: shape[0] = [3,2] vs. shape[1] = [2,2]")
    assert run_error(tf.concat([f, tf.identity(f)[1]], 1), {f: z}) == (
        "ConcatOp : Ranks of all input tensors should match: shape[0] = [3,2] vs. shape[1] = [2]")
    assert run_error(tf.concat([f, f], 0), {f: 1.0}) == "ConcatOp : Can't concatenate scalars (use tf.stack instead)"
    assert run_error(tf.concat([f, f], i), {f: z, i: [0, 1]}) == (
        "axis tensor should be a scalar integer, but got shape [2]")
    check_tensor(tf.concat([f, f], i), np.zeros((6, 2), np.float32), {f: z, i: [0]}, fully_defined=False)


def test_concat_offset_values_and_errors():
    """TF's ConcatOffset (the offsets a concat's gradient slices at), with TF 2.21's messages."""
    offsets = tf.raw_ops.ConcatOffset(concat_dim=1, shape=[tf.constant([2, 3, 4]), tf.constant([2, 5, 4]),
                                                           tf.constant([2, 1, 4])])
    assert [t.shape.as_list() for t in offsets] == [[3], [3], [3]]
    with tf.Session() as sess:
        assert [v.tolist() for v in sess.run(offsets)] == [[0, 0, 0], [0, 3, 0], [0, 8, 0]]
        last = tf.raw_ops.ConcatOffset(concat_dim=-1, shape=[tf.constant([2, 3], tf.int64),
                                                               tf.constant([2, 5], tf.int64)])
        assert [v.tolist() for v in sess.run(last)] == [[0, 0], [0, 3]] and last[0].dtype == tf.int64
    for concat_dim, shapes, message in [
            (3, [[2, 3], [2, 5]], "Concat dim is out of range: 3 vs. 2"),
            (0, [[2, 3], [2, 5]], "All dimensions except 0 must match. Input 1 has shape [2 5] and doesn't match "
                                  "input 0 with shape [2 3]."),
            (0, [[2, 3], [2, 5, 1]], "input 1 should contain 2 elements, but got 3"),
            ([0], [[2, 3], [2, 3]], "Concat dim tensor should be a scalar integer, but got shape [1]")]:
        offsets = tf.raw_ops.ConcatOffset(concat_dim=concat_dim, shape=[tf.constant(s) for s in shapes])
        assert run_error(offsets[0]) == message


def test_concat_gradient_graph_as_tf():
    """The gradient of a concat is TF's graph: ConcatOffset and a Slice per input (shapes as constants when
    known, else a ShapeN), or one split past 16 inputs; tensor names and values as TF 2.21's."""
    a, b = tf.constant(np.ones((2, 3), np.float32)), tf.constant(np.ones((2, 5), np.float32))
    c = tf.concat([a, b], 1)
    grads = tf.gradients(tf.reduce_sum(c * c), [a, b])
    graph = tf.get_default_graph()
    kinds = sorted(op.type for op in graph.get_operations() if op.name.startswith("gradients/concat_grad"))
    assert kinds == ["ConcatOffset", "Const", "Const", "Const", "FloorMod", "Slice", "Slice"]
    assert [t.name for t in grads] == ["gradients/concat_grad/Slice:0", "gradients/concat_grad/Slice_1:0"]
    x, y = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [None, 4])
    unknown = tf.gradients(tf.reduce_sum(tf.concat([x, y], -1)), [x, y])
    kinds = sorted(op.type for op in graph.get_operations() if op.name.startswith("gradients_1/concat_1_grad"))
    assert kinds == ["ConcatOffset", "Const", "FloorMod", "Shape", "ShapeN", "Slice", "Slice"]
    assert [t.shape.as_list() for t in unknown] == [[None, 3], [None, 4]]
    many = [tf.constant(np.full((2, i + 1), i, np.float32)) for i in range(18)]
    joined = tf.concat(many, 1)
    split = tf.gradients(tf.reduce_sum(joined * tf.range(171, dtype=tf.float32)), many)
    assert [t.name for t in split[:2]] == ["gradients_2/concat_2_grad/split:0", "gradients_2/concat_2_grad/split:1"]
    with tf.Session() as sess:
        assert [g.tolist() for g in sess.run(grads)] == [[[2.0] * 3] * 2, [[2.0] * 5] * 2]
        got = sess.run(unknown, {x: np.ones((1, 3)), y: np.ones((1, 4))})
        assert [g.tolist() for g in got] == [[[1.0] * 3], [[1.0] * 4]]
        assert [g.tolist() for g in sess.run(split[:3])] == [[[0.0], [0.0]], [[1.0, 2.0]] * 2,
                                                             [[3.0, 4.0, 5.0]] * 2]


# -- ExpandDims, Squeeze -----------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, 3, -1, -4])
def test_expand_dims(axis):
    check_op(lambda x: tf.expand_dims(x, axis), [X], np.expand_dims(X, axis))


def test_expand_dims_errors():
    x = tf.constant(X)
    assert tf.expand_dims(x, 1).op.inputs[1].name == "ExpandDims/dim:0"
    assert tf.expand_dims(x, dim=1).shape.as_list() == [2, 1, 3, 4]
    assert tf.expand_dims(x, [1]).shape.as_list() == [2, 1, 3, 4]
    assert tf.expand_dims(tf.placeholder(tf.float32), 0).shape.ndims is None
    with pytest.raises(ValueError, match=r"^dim 4 not in the interval \[-4, 3\]. for "):
        tf.expand_dims(x, 4)
    with pytest.raises(ValueError, match="^'dim' input must be a tensor with a single value for "):
        tf.expand_dims(x, [1, 2])
    with pytest.raises(ValueError, match=r"^Must specify an axis argument to tf.expand_dims\(\)$"):
        tf.expand_dims(x)
    with pytest.raises(ValueError, match="^Cannot specify both 'dim' and 'axis'.$"):
        tf.expand_dims(x, 1, dim=1)
    f, i = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    z = np.zeros((3, 2))
    assert run_error(tf.expand_dims(f, i), {f: z, i: 3}) == "Tried to expand dim index 3 for tensor with 2 dimensions."
    assert run_error(tf.expand_dims(f, i), {f: z, i: [0, 1]}) == "'dim' must be a tensor with a single value"


@pytest.mark.parametrize("axis", [None, [0], 2, [-2, 0], [0, 2]])
def test_squeeze(axis):
    y = np.arange(6.0).reshape(1, 3, 1, 2)
    expected = np.squeeze(y, axis=None if axis is None else tuple(np.atleast_1d(axis)))
    check_op(lambda y: tf.squeeze(y, axis), [y], expected)


def test_squeeze_errors_and_partial_shapes():
    y = tf.constant(np.zeros((1, 3, 1, 2)))
    assert tf.squeeze(y, squeeze_dims=[0]).shape.as_list() == [3, 1, 2]
    assert tf.squeeze(tf.placeholder(tf.float32, [None, 1, 3])).shape.ndims is None
    assert tf.squeeze(tf.placeholder(tf.float32, [None, 1, 3]), [0]).shape.as_list() == [1, 3]
    with pytest.raises(ValueError, match="^Can not squeeze dim.1., expected a dimension of 1, got 3 for "):
        tf.squeeze(y, [1])
    with pytest.raises(ValueError, match=r"^squeeze_dims\[0\] not in \[-4,4\). for "):
        tf.squeeze(y, [4])
    with pytest.raises(ValueError, match="^Cannot specify both 'squeeze_dims' and 'axis'.$"):
        tf.squeeze(y, [0], squeeze_dims=[0])
    f = tf.placeholder(tf.float32)
    z = np.zeros((3, 2))
    assert run_error(tf.squeeze(f, [1]), {f: z}) == "Can not squeeze dim[1], expected a dimension of 1, got 2"
    assert run_error(tf.squeeze(f, [2]), {f: z}) == "Tried to squeeze dim index 2 for tensor with 2 dimensions."


# -- Transpose ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("perm", [None, [1, 0, 2], [2, 0, 1], [-1, 0, 1]])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_transpose(perm, dtype):
    x = X.astype(dtype)
    check_op(lambda x: tf.transpose(x, perm), [x], np.transpose(x, perm))


def test_transpose_graph_and_errors():
    x = tf.constant(X)
    t = tf.transpose(x, name="tt")
    assert t.name == "tt:0" and t.op.inputs[1].name == "tt/perm:0"
    p = tf.placeholder(tf.float32)
    reversed_ = tf.transpose(p)
    assert graph_ops()[-7:-1] == [("transpose/Rank", "Rank"), ("transpose/sub/y", "Const"), ("transpose/sub", "Sub"),
                                ("transpose/Range/limit", "Const"), ("transpose/Range/delta", "Const"),
                                ("transpose/Range", "Range")]
    check_tensor(reversed_, np.arange(6.0, dtype=np.float32).reshape(1, 3, 2).T, {p: np.arange(6.0).reshape(1, 3, 2)},
                 fully_defined=False)
    assert tf.transpose(tf.placeholder(tf.float32, [None, 3])).shape.as_list() == [3, None]
    assert tf.transpose(p, [1, 0]).shape.as_list() == [None, None]
    assert tf.transpose(x, [1, 0, 0]).shape.as_list() == [3, 2, 2]  # TF checks duplicates only when run
    with pytest.raises(ValueError, match="^Dimension must be 3 but is 2 for "):
        tf.transpose(x, [1, 0])
    with pytest.raises(ValueError, match="^perm dim 3 is out of range of input rank 3 for "):
        tf.transpose(x, [1, 0, 3])
    c = tf.transpose([[1j, 2]], conjugate=True)
    assert c.op.type == "ConjugateTranspose"
    check_tensor(c, np.array([[-1j], [2]], np.complex128))
    assert tf.transpose([[1, 2]], conjugate=True).op.type == "Transpose"
    i = tf.placeholder(tf.int32)
    z = np.zeros((3, 2))
    assert run_error(tf.transpose(p, i), {p: z, i: [1, 1]}) == "0 is missing from {1,1}."
    assert run_error(tf.transpose(p, i), {p: z, i: [1, 2]}) == "2 is out of range [0 .. 2)"
    assert run_error(tf.transpose(p, i), {p: z, i: [-3, 0]}) == "-1 is out of range [0 .. 2)"
    assert run_error(tf.transpose(p, i), {p: z, i: [1]}) == (
        "transpose expects a vector of size 2. But input(1) is a vector of size 1")
    assert run_error(tf.transpose(p, i), {p: z, i: [[1, 0]]}) == "perm must be rank 1, got shape [1,2]"


# -- Where, GatherV2, boolean_mask -------------------------------------------------------------------

@pytest.mark.parametrize("condition", [[[True, False], [False, True]], [1, 0, 2], [0.0, np.nan, -0.0, 1.5],
                                       np.zeros((0, 3), bool), np.arange(24).reshape(2, 3, 4) % 5 == 0])
def test_where_coordinates(condition):
    c = np.asarray(condition)
    w = tf.where(condition)
    assert w.dtype == tf.int64 and w.shape.as_list() == [None, c.ndim]
    check_tensor(w, np.argwhere(c), fully_defined=False)


def test_where_graph_and_errors():
    b = tf.constant([[True, False]])
    assert tf.where(b, name="foo").name == "foo:0"
    assert tf.where(tf.constant([1, 0])).op._node_def.attr["T"] == tf.int32
    assert tf.where(tf.placeholder(tf.bool)).shape.as_list() == [None, None]
    with pytest.raises(ValueError, match="^x and y must both be non-None or both be None.$"):
        tf.where(b, x=b)
    i = tf.placeholder(tf.int32)
    assert run_error(tf.where(i), {i: 3}) == "WhereOp : Unhandled input dimensions: 0"


PARAMS = np.arange(24.0).reshape(2, 3, 4)


@pytest.mark.parametrize("indices, axis", [([0, 1], 0), ([[2, 0], [1, 1]], 1), (3, 2), ([1], -1),
                                           (np.zeros(0, np.int32), 0),
                                           (np.array([2, 0], np.int64), -2)])
def test_gather_matches_numpy_take(indices, axis):
    check_op(lambda params: tf.gather(params, indices, axis=axis), [PARAMS], np.take(PARAMS, indices, axis=axis))


def test_gather_batch_dims():
    idx = np.array([[0, 2], [1, 1]])
    expected = np.stack([np.take(PARAMS[b], idx[b], axis=0) for b in range(2)])
    check_tensor(tf.gather(PARAMS, idx, batch_dims=1), expected)
    check_tensor(tf.gather(PARAMS, idx, axis=1, batch_dims=-1), expected)
    expected = np.stack([np.take(PARAMS[b], idx[b], axis=1) for b in range(2)])
    check_tensor(tf.gather(PARAMS, idx, axis=2, batch_dims=1), expected)
    idx2 = np.arange(6).reshape(2, 3) % 4
    check_tensor(tf.gather(PARAMS, idx2, axis=2, batch_dims=2), np.take_along_axis(PARAMS, idx2[..., None], 2)[..., 0])
    strings = np.array([b"a", b"bb", b"c"], dtype=object)
    check_tensor(tf.gather(strings, [2, 0]), strings[[2, 0]])


def test_gather_graph_and_errors():
    p = tf.constant([[1, 2], [3, 4], [5, 6]])
    g = tf.gather(p, [1], name="g")
    assert [t.name for t in g.op.inputs] == ["Const:0", "g/indices:0", "g/axis:0"]
    attrs = g.op._node_def.attr
    assert (attrs["Tparams"], attrs["Tindices"], attrs["Taxis"], attrs["batch_dims"]) == (tf.int32, tf.int32,
                                                                                          tf.int32, 0)
    assert tf.gather(p, tf.placeholder(tf.int32), axis=tf.placeholder(tf.int32)).shape.ndims is None
    assert tf.gather(p, tf.placeholder(tf.int32, [None]), axis=tf.placeholder(tf.int32)).shape.as_list() == [None, None]
    assert tf.gather(p, [[1, 0], [0, 1]], batch_dims=1).shape.as_list() == [3, 2]
    with pytest.raises(ValueError, match="^Shape must be at least rank 3 but is rank 2 for "):
        tf.gather(p, [1], axis=2)
    with pytest.raises(ValueError, match="^Shape must be at least rank 1 but is rank 0 for "):
        tf.gather(tf.constant(1), [0])
    with pytest.raises(TypeError, match="^Value passed to parameter 'indices' has DataType float32 not in list of "
                                        "allowed values: int16, int32, int64$"):
        tf.gather(p, [1.0])
    f, i, j = tf.placeholder(tf.float32), tf.placeholder(tf.int32), tf.placeholder(tf.int32)
    z = np.zeros((3, 2))
    assert run_error(tf.gather(f, i), {f: np.zeros(3), i: [0, 5]}) == "indices[1] = 5 is not in [0, 3)"
    assert run_error(tf.gather(f, i), {f: z, i: [[0, 1], [2, -1]]}) == "indices[1,1] = -1 is not in [0, 3)"
    assert run_error(tf.gather(f, i), {f: np.zeros(3), i: 5}) == "indices = 5 is not in [0, 3)"
    assert run_error(tf.gather(f, i, axis=j), {f: z, i: [0], j: -3}) == "Shape must be at least rank 3 but is rank 2"
    assert run_error(tf.gather(f, i, axis=j), {f: 1.0, i: [0], j: 0}) == "params must be at least 1 dimensional"
    assert run_error(tf.gather(f, i, axis=j), {f: z, i: [0], j: [0]}) == "axis must be scalar"
    assert run_error(tf.gather(f, i, batch_dims=1), {f: z, i: [[0], [1]]}) == (
        "params.shape[0]: 3 should be equal to indices.shape[0]: 2")
    assert run_error(tf.gather(f, i, batch_dims=3), {f: z, i: [[0], [1], [1]]}) == (
        "Shape must be at least rank 4 but is rank 2")  # axis defaults to batch_dims
    assert run_error(tf.gather(f, i, axis=1, batch_dims=3), {f: z, i: [[0], [1], [1]]}) == (
        "Expected batch_dims in the range [-2, 2], but got 3")


def test_boolean_mask():
    x = tf.constant(X)
    m = tf.boolean_mask(x, [True, False])
    assert m.name == "boolean_mask/GatherV2:0" and m.shape.as_list() == [None, 3, 4]
    assert [t for _, t in graph_ops()][-8:] == ["ConcatV2", "Reshape", "Const", "Reshape", "Where", "Squeeze",
                                                "Const", "GatherV2"]
    check_tensor(m, X[[True, False]], fully_defined=False)
    mask2 = np.array([[True, False, True], [False, False, True]])
    m2 = tf.boolean_mask(x, mask2)
    assert m2.shape.as_list() == [None, 4]
    check_tensor(m2, X[mask2], fully_defined=False)
    m3 = tf.boolean_mask(x, [True, False, True], axis=1)
    assert m3.shape.as_list() == [2, None, 4]
    check_tensor(m3, X[:, [True, False, True]], fully_defined=False)
    check_tensor(tf.boolean_mask(x, [1, 0]), X[[True, False]], fully_defined=False)
    assert tf.boolean_mask(x, [True, False, True], axis=tf.placeholder(tf.int32)).shape.ndims is None
    assert tf.boolean_mask(tf.placeholder(tf.float32, [None, 3]),
                           tf.placeholder(tf.bool, [None])).shape.as_list() == [None, 3]
    with pytest.raises(ValueError, match=r"^Shapes \(2,\) and \(3,\) are incompatible$"):
        tf.boolean_mask(x, [True, False, True])
    with pytest.raises(ValueError, match="^Number of mask dimensions must be specified, even if some dimensions are "
                                         "None.  E.g. shape=.None. is ok, but shape=None is not.$"):
        tf.boolean_mask(x, tf.placeholder(tf.bool))
    f = tf.placeholder(tf.float32)
    mask = tf.placeholder_with_default([[True, False], [False, True]], [None, None])
    check_tensor(tf.boolean_mask(f, mask), np.array([[0, 1, 2], [9, 10, 11]], np.float32),
                 {f: np.arange(12).reshape(2, 2, 3)}, fully_defined=False)


def test_report_uninitialized_variables_uses_stack_and_boolean_mask():
    v = tf.Variable([1.0], name="v")
    tf.Variable(3, name="w")
    names = tf.report_uninitialized_variables()
    with tf.Session() as sess:
        assert sess.run(names).tolist() == [b"v", b"w"]
        sess.run(v.initializer)
        assert sess.run(names).tolist() == [b"w"]


# -- Slice, Tile, OneHot -----------------------------------------------------------------------------

def test_slice():
    x = tf.constant(X)
    s = tf.slice(x, [0, 1, 0], [1, -1, 2])
    assert s.name == "Slice:0" and s.op.inputs[2].name == "Slice/size:0"
    check_tensor(s, X[0:1, 1:, 0:2])
    assert tf.slice(x, [0, 1, 0], tf.placeholder(tf.int32, [3])).shape.as_list() == [None, None, None]
    assert tf.slice(x, tf.placeholder(tf.int32, [3]), [1, -1, 2]).shape.as_list() == [1, None, 2]
    assert tf.slice(tf.placeholder(tf.float32, [None, 5]), [1, 1], [-1, -1]).shape.as_list() == [None, 4]
    assert tf.slice(x, [0, 0, 0], [3, 1, 1]).shape.as_list() == [3, 1, 1]  # bounds are checked when run
    with pytest.raises(ValueError, match="^Shape must be rank 2 but is rank 3 for "):
        tf.slice(x, [0, 1], [1, 3])
    with pytest.raises(ValueError, match="^Invalid value in tensor used for shape: -2$"):
        tf.slice(x, [0, 1, 0], [1, -2, 2])
    f, i = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    z = np.zeros((3, 2))
    assert run_error(tf.slice(f, i, [1, 1]), {f: z, i: [3, 0]}) == "Expected size[0] in [0, 0], but got 1"
    assert run_error(tf.slice(f, [-1, 0], [1, 1]), {f: z}) == "Expected begin[0] in [0, 3], but got -1"
    assert run_error(tf.slice(f, [0, 0], i), {f: z, i: [1, -2]}) == "Expected size[1] in [0, 2], but got -2"
    assert run_error(tf.slice(f, i, [1, 1]), {f: z, i: [2, 0, 1]}) == (
        "Expected begin and size arguments to be 1-D tensors of size 2, but got shapes [3] and [2] instead.")


def test_tile():
    x = tf.constant(X)
    t = tf.tile(x, [1, 2, 3])
    assert t.op.inputs[1].name == "Tile/multiples:0"
    check_tensor(t, np.tile(X, [1, 2, 3]))
    check_tensor(tf.tile(tf.constant([b"a", b"b"]), [2]), np.array([b"a", b"b"] * 2, dtype=object))
    assert tf.tile(x, [1, 2, -1]).shape.as_list() == [2, 6, None]
    assert tf.tile(tf.placeholder(tf.float32, [None, 2]), [0, 1]).shape.as_list() == [0, 2]
    assert tf.tile(x, tf.placeholder(tf.int32, [3])).shape.as_list() == [None, None, None]
    with pytest.raises(ValueError, match="^Shape must be rank 3 but is rank 2 for "):
        tf.tile(x, [1, 2])
    with pytest.raises(ValueError, match="^Shape must be rank 1 but is rank 2 for "):
        tf.tile(x, [[1, 2, 3]])
    f, i = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    z = np.zeros((3, 2))
    assert run_error(tf.tile(f, i), {f: z, i: [1]}) == (
        "Expected multiples argument to be a vector of length 2 but got length 1")
    assert run_error(tf.tile(f, i), {f: z, i: [1, -1]}) == "Expected multiples[1] >= 0, but got -1"


@pytest.mark.parametrize("indices, axis", [([0, 2, 5, -1], -1), ([[0, -1], [3, 1]], 0), ([[0, -1], [3, 1]], 1),
                                           (2, -1)])
def test_one_hot_values(indices, axis):
    idx = np.asarray(indices)
    expected = np.moveaxis((idx[..., None] == np.arange(3)).astype(np.float32), -1, axis)
    check_op(lambda i: tf.one_hot(i, 3, axis=axis), [indices], expected)


def test_one_hot_dtypes_and_errors():
    assert [t.name for t in tf.one_hot([0, 2], 3).op.inputs] == [
        "one_hot/indices:0", "one_hot/depth:0", "one_hot/on_value:0", "one_hot/off_value:0"]
    assert tf.one_hot([0], 3).op._node_def.attr["TI"] == tf.int32
    check_tensor(tf.one_hot([0, 2], 3, on_value=5, off_value=1), np.array([[5, 1, 1], [1, 1, 5]], np.int32))
    check_tensor(tf.one_hot(tf.constant([1], tf.uint8), 2, on_value=b"y", off_value=b"n"),
                  np.array([[b"n", b"y"]], dtype=object))
    assert tf.one_hot([0, 2], 3, dtype=tf.int64).dtype == tf.int64
    assert tf.one_hot([0, 2], tf.placeholder(tf.int32)).shape.as_list() == [2, None]
    with pytest.raises(TypeError, match="^dtype <dtype: 'float32'> of on_value does not match dtype <dtype: 'int32'> "
                                        "of off_value$"):
        tf.one_hot([0, 2], 3, on_value=5.0, off_value=1)
    with pytest.raises(TypeError, match="^dtype <dtype: 'float32'> of on_value does not match dtype parameter "
                                        "<dtype: 'int32'>$"):
        tf.one_hot([0, 2], 3, on_value=1.0, dtype=tf.int32)
    with pytest.raises(ValueError, match="^axis must be >= -1 for "):
        tf.one_hot([[0, 2]], 3, axis=-2)
    with pytest.raises(ValueError, match="^Dimension size, given by scalar input 1, must be non-negative but is -1 "):
        tf.one_hot([0, 2], -1)
    i, d = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
    assert run_error(tf.one_hot(i, 3, axis=2), {i: [0, 2]}) == (
        "Expected axis to be -1 or between [0, 2).  But received: 2")
    assert run_error(tf.one_hot(i, d), {i: [0, 2], d: -1}) == "depth must be non-negative, got: -1"


# -- shape, size, rank fold to constants, as in TF -----------------------------------------------------

def test_shape_size_rank_are_constants_when_known():
    x = tf.constant(X)
    assert [(t.op.name, t.op.type) for t in (tf.shape(x), tf.size(x), tf.rank(x))] == [
        ("Shape", "Const"), ("Size", "Const"), ("Rank", "Const")]
    assert tf.size(tf.placeholder(tf.float32, [None, 0])).op.type == "Const"
    p = tf.placeholder(tf.float32, [None, 3])
    s, n, r = tf.shape(p), tf.size(p), tf.rank(tf.placeholder(tf.float32))
    assert (s.op.type, n.op.type, r.op.type) == ("Shape", "Size", "Rank")
    assert run([s, n], {p: np.zeros((2, 3))})[0].tolist() == [2, 3]


# -- Equal, NotEqual, Range (math_ops) ----------------------------------------------------------------

@pytest.mark.parametrize("x, y", [([[1, 2], [3, 4]], [1, 4]), ([1.5, np.nan], [1.5, np.nan]),
                                  ([True, False], True), ([b"a", b"b"], [b"a", b"c"]), ([1j, 2], 2)])
def test_equal_not_equal(x, y):
    check_tensor(tf.equal(x, y), np.equal(np.asarray(x, dtype=object if isinstance(x[0], bytes) else None), y))
    check_tensor(tf.not_equal(x, y), np.not_equal(np.asarray(x, dtype=object if isinstance(x[0], bytes) else None),
                                                   y))


def test_equal_graph_and_errors():
    p = tf.constant([[1, 2], [3, 4], [5, 6]])
    e = tf.equal(p, 1)
    assert e.op.inputs[1].name == "Equal/y:0" and e.op._node_def.attr["incompatible_shape_error"] is True
    assert tf.not_equal(p, 1, name="ne").name == "ne:0"
    with pytest.raises(ValueError, match="^Dimensions must be equal, but are 2 and 3 for "):
        tf.equal(p, [1, 2, 3])
    with pytest.raises(TypeError, match="^Expected int32 passed to parameter 'y' of op 'Equal', got 1.5 of type "
                                        "'float' instead. Error: Expected int32, but got 1.5 of type 'float'.$"):
        tf.equal(p, 1.5)
    i, j = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
    assert run_error(tf.equal(i, j), {i: [1, 2], j: [1, 2, 3]}) == "Incompatible shapes: [2] vs. [3]"
    lenient = tf.get_default_graph().create_op("NotEqual", [i, j], attrs={"incompatible_shape_error": False})
    assert run(lenient.outputs[0], {i: [1, 2], j: [1, 2, 3]}) is np.True_


@pytest.mark.parametrize("args, kwargs, expected", [
    ((5,), {}, np.arange(5, dtype=np.int32)),
    ((1, 5), {}, np.arange(1, 5, dtype=np.int32)),
    ((1, 5, 0.5), {}, np.arange(1, 5, 0.5, dtype=np.float32)),
    ((1.0, 5, 2), {}, np.array([1, 3], np.float32)),
    ((5,), {"dtype": tf.float64}, np.arange(5, dtype=np.float64)),
    ((np.int64(3),), {}, np.arange(3, dtype=np.int64)),
    ((5, 1, -2), {}, np.array([5, 3], np.int32)),
    ((-7, 8, 3), {}, np.arange(-7, 8, 3, dtype=np.int32)),
    ((0.0, 1.0, 0.1), {}, np.float32(0) + np.arange(10, dtype=np.float32) * np.float32(0.1)),
])
def test_range_values_and_dtype_inference(args, kwargs, expected):
    check_op(lambda: tf.range(*args, **kwargs), [], expected)


def test_range_graph_and_errors():
    r = tf.range(1, 5, 0.5)
    assert [n for n, _ in graph_ops()] == ["range/start", "range/limit", "range/delta", "range/Cast", "range/Cast_1",
                                           "range"]
    assert r.op._node_def.attr["Tidx"] == tf.float32
    assert tf.range(tf.constant(5, tf.int64), 7).dtype == tf.int64
    assert tf.range(0, tf.placeholder(tf.int32)).shape.as_list() == [None]
    for args, message in [((5, 1), "Requires start <= limit when delta > 0: 5/1"),
                          ((1, 5, 0), "Requires delta != 0"),
                          ((1, 5, -1), "Requires start >= limit when delta < 0: 1/5"),
                          ((1.23456789, 0.0), "Requires start <= limit when delta > 0: 1.23457/0"),
                          ((tf.constant([5]), 7), "Shape must be rank 0 but is rank 1\n\t for 'start'")]:
        with pytest.raises(ValueError) as info:
            tf.range(*args)
        assert str(info.value).startswith(message + " for ")
    i, j, f = tf.placeholder(tf.int32), tf.placeholder(tf.int32), tf.placeholder(tf.float32)
    assert run_error(tf.range(i, j), {i: 3, j: 1}) == "Requires start <= limit when delta > 0: 3/1"
    assert run_error(tf.range(1.0, 2.0, f), {f: 0.0}) == "Requires delta != 0: 0"
    assert run_error(tf.range(i, j), {i: 3, j: [1, 2]}) == "limit must be a scalar, not shape [2]"
    check_tensor(tf.range(i, j), np.arange(3, dtype=np.int32), {i: [0], j: 3}, fully_defined=False)


def test_reduce_over_unknown_rank_uses_range():
    p = tf.placeholder(tf.float32)
    assert run(tf.reduce_sum(p), {p: np.ones((2, 3))}) == 6.0


# -- Edge cases found by the differential harness (difftest/snippets_ops.py); literals recorded from TF --


def test_fill_rejects_negative_dims_when_building():
    with pytest.raises(ValueError, match=r"^Fill dimensions must be >= 0 for '{{node Fill}} = Fill"):
        tf.fill([-1], 0)
    with pytest.raises(ValueError, match="^Invalid value in tensor used for shape: -2"):
        tf.fill([-2, 6], 1)


def test_reshape_to_a_shape_with_a_zero_and_minus_one():
    t = tf.ones([2, 3, 4])
    with pytest.raises(ValueError, match=r"^Cannot reshape a tensor with 24 elements to shape \[0,\?\] \(0 elements\) "):
        tf.reshape(t, [0, -1])
    with pytest.raises(ValueError, match="^Dimension size must be evenly divisible by 5 but is 24 for "):
        tf.reshape(t, [5, -1])
    assert tf.reshape(tf.zeros([0, 3]), [0, -1]).shape.as_list() == [0, None]
    x, s = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    r = tf.reshape(x, s)
    # the -1 of an empty tensor is its extent over the zeros, floor-divided by the requested non-zero sizes
    for shape, target, expected in [((0, 3), [0, -1], (0, 3)), ((0, 3), [-1, 0], (3, 0)), ((0, 6), [4, 0, -1], (4, 0, 1)),
                                    ((2, 0, 3), [3, 0, -1], (3, 0, 2)), ((0,), [0, -1], (0, 1)),
                                    ((0, 3), [5, -1], (5, 0))]:
        assert run(r, {x: np.zeros(shape), s: target}).shape == expected
    assert run_error(r, {x: np.zeros((2, 3)), s: [0, -1]}) == (
        "Input to reshape is a tensor with 6 values, but the requested shape has 0")
    assert run_error(r, {x: np.zeros((2, 3)), s: [4, -1]}) == (
        "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple of 4")


def test_reshape_of_one_unknown_input_dim_to_a_known_shape_checks_divisibility():
    """TF's shape function: an input [?,3] can only become a known shape whose size 3 divides (recorded TF 2.21)."""
    x = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(ValueError, match="^Dimension size must be evenly divisible by 3 but is 4 for "):
        tf.reshape(x, [4])
    assert tf.reshape(x, [6]).shape.as_list() == [6]
    assert tf.reshape(tf.placeholder(tf.float32, [None, None, 3]), [4]).shape.as_list() == [4]


def test_dtypes_without_a_tf_kernel_are_unimplemented():
    for fetch, message in [(tf.tile(tf.constant([1, 2], tf.uint16), [2]),
                            "TileOp : The input data type is not supported, DataType : uint16, Dimension : 1"),
                           (tf.where(tf.constant([1, 0], tf.float16)),
                            "No WhereOp available for float16/half type on CPU; dying in CPU WhereOp to avoid "
                            "silently creating costly copies from device.")]:
        with pytest.raises(tf.errors.UnimplementedError) as info:
            run(fetch)
        assert runtime_message(info.value).split("\n")[0] == message


# -- Pad, PadV2, MirrorPad, ReverseV2, BroadcastTo, GatherNd ------------------------------------------
X23 = np.arange(6, dtype=np.float32).reshape(2, 3)


def test_pad_modes():
    padded = tf.pad(X23, [[1, 0], [0, 2]])
    assert padded.op.type == "Pad" and [t.name for t in padded.op.inputs] == ["Pad/input:0", "Pad/paddings:0"]
    check_tensor(padded, np.pad(X23, [[1, 0], [0, 2]]))
    filled = tf.pad(X23, [[1, 0], [0, 2]], constant_values=7)
    assert filled.op.type == "PadV2" and filled.op.inputs[2].name == "PadV2/constant_values:0"
    check_tensor(filled, np.pad(X23, [[1, 0], [0, 2]], constant_values=7))
    reflected = tf.pad(X23, [[1, 1], [2, 2]], mode="REFLECT")
    assert reflected.op.type == "MirrorPad" and reflected.op.get_attr("mode") == b"REFLECT"
    check_tensor(reflected, np.array([[5, 4, 3, 4, 5, 4, 3], [2, 1, 0, 1, 2, 1, 0], [5, 4, 3, 4, 5, 4, 3],
                                       [2, 1, 0, 1, 2, 1, 0]], np.float32))
    check_tensor(tf.pad(X23, [[1, 1], [2, 2]], mode="symmetric"),
                  np.array([[1, 0, 0, 1, 2, 2, 1], [1, 0, 0, 1, 2, 2, 1], [4, 3, 3, 4, 5, 5, 4],
                            [4, 3, 3, 4, 5, 5, 4]], np.float32))
    check_tensor(tf.pad(X23, np.array([[1, 0], [0, 0]], np.int64)), np.pad(X23, [[1, 0], [0, 0]]))
    check_tensor(tf.pad(tf.constant([["a"]]), [[1, 0], [0, 1]]), np.array([[b"", b""], [b"a", b""]], object))
    check_tensor(tf.pad(tf.constant([["a"]]), [[1, 0], [0, 1]], constant_values="z"),
                  np.array([[b"z", b"z"], [b"a", b"z"]], object))
    value = tf.placeholder(tf.float32)
    check_tensor(tf.pad(X23, [[1, 1], [0, 0]], constant_values=value),
                 np.pad(X23, [[1, 1], [0, 0]], constant_values=2.5), {value: 2.5}, fully_defined=False)
    assert tf.pad(tf.placeholder(tf.float32, [None, 3]), [[1, 1], [2, 0]]).shape.as_list() == [None, 5]
    assert tf.pad(tf.placeholder(tf.float32), [[1, 1], [2, 0]]).shape.as_list() == [None, None]
    assert tf.pad(tf.placeholder(tf.float32), tf.placeholder(tf.int32)).shape.ndims is None
    check_tensor(tf.pad(tf.constant(1), tf.zeros([0, 2], tf.int32)), np.array(1, np.int32))  # a scalar, unpadded


def test_pad_errors():
    with pytest.raises(ValueError, match='^Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", '
                       'or "SYMMETRIC". Received `mode` = FOO$'):
        tf.pad(X23, [[1, 1], [2, 2]], mode="foo")
    with pytest.raises(ValueError, match="^Shape must be rank 1 but is rank 2 for '{{node Pad}}"):
        tf.pad(X23, [[1, 1]])
    with pytest.raises(ValueError, match="^Dimension must be 2 but is 3 for "):
        tf.pad(X23, [[1, 1, 1], [0, 0, 0]])
    with pytest.raises(ValueError, match="^Paddings must be non-negative for "):
        tf.pad(X23, [[-1, 1], [0, 0]])
    paddings, value = tf.placeholder(tf.int32), tf.placeholder(tf.float32)
    assert run_error(tf.pad(X23, paddings), {paddings: [[-1, 0], [0, 0]]}) == "Paddings must be non-negative: -1 0"
    assert run_error(tf.pad(X23, paddings), {paddings: [[1, 0]]}) == (
        "The first dimension of paddings must be the rank of inputs[1,2] [2,3]")
    assert run_error(tf.pad(X23, paddings), {paddings: [[1, 0, 1], [0, 1, 1]]}) == (
        "paddings must be a matrix with 2 columns: [2,3]")
    assert run_error(tf.pad(X23, paddings, "REFLECT"), {paddings: [[2, 0], [0, 0]]}) == (
        "paddings must be less than the dimension size: 2, 0 not less than 2")
    assert run_error(tf.pad(X23, paddings, "REFLECT"), {paddings: [[1, 0], [0, -1]]}) == (
        "paddings must be non-negative: 0 -1")
    assert run_error(tf.pad(X23, paddings, "SYMMETRIC"), {paddings: [[3, 0], [0, 0]]}) == (
        "paddings must be no greater than the dimension size: 3, 0 greater than 2")
    assert run_error(tf.pad(X23, [[1, 1], [0, 0]], constant_values=value), {value: [2.5]}) == (
        "constant_values must be a scalar. Found: [1]")


def test_reverse():
    flipped = tf.reverse(X23, [1])
    assert flipped.op.type == "ReverseV2" and [t.name for t in flipped.op.inputs] == [
        "ReverseV2/tensor:0", "ReverseV2/axis:0"]
    check_tensor(flipped, X23[:, ::-1])
    check_tensor(tf.reverse(X23, [-1, 0]), X23[::-1, ::-1])
    check_tensor(tf.reverse_v2(X23, [0]), X23[::-1])
    check_tensor(tf.reverse(tf.constant(["a", "b"]), [0]), np.array([b"b", b"a"], object))
    axis, scalar = tf.placeholder(tf.int32), tf.placeholder(tf.float32)
    assert run(tf.reverse(X23, axis), {axis: []}).tolist() == X23.tolist()
    assert run(tf.reverse(scalar, [0]), {scalar: 3.0}) == 3.0
    with pytest.raises(ValueError, match=r"^axis 1 specified more than once. for "):
        tf.reverse(X23, [1, 1])
    with pytest.raises(ValueError, match=r"^'axis'\[0\] = 2 is out of valid range \[0, 1 for "):
        tf.reverse(X23, [2])
    with pytest.raises(ValueError, match="^Shape must be rank 1 but is rank 2 for "):
        tf.reverse(X23, [[1]])
    assert run_error(tf.reverse(X23, axis), {axis: [3]}) == "'axis'[0] = 3 is out of valid range [0, 1"
    assert run_error(tf.reverse(X23, axis), {axis: [1, -1]}) == "axis 1 specified more than once."
    assert run_error(tf.reverse(X23, axis), {axis: [[1]]}) == "'dims' must be 1-dimension, not 2"


def test_broadcast_to():
    row = tf.broadcast_to([1, 2, 3], [2, 3])
    assert row.op.type == "BroadcastTo" and [t.name for t in row.op.inputs] == [
        "BroadcastTo/input:0", "BroadcastTo/shape:0"]
    check_tensor(row, np.array([[1, 2, 3], [1, 2, 3]], np.int32))
    check_tensor(tf.broadcast_to(X23, [4, 2, 3]), np.broadcast_to(X23, (4, 2, 3)))
    column = tf.placeholder(tf.float32)
    check_tensor(tf.broadcast_to(column, [2, 3]), np.array([[1, 1, 1], [2, 2, 2]], np.float32), {column: [[1.0], [2.0]]},
                 fully_defined=False)
    assert tf.broadcast_to(X23, tf.placeholder(tf.int32, [3])).shape.as_list() == [None, 2, 3]
    assert tf.broadcast_to(tf.placeholder(tf.float32, [None, 1]), [2, 3]).shape.as_list() == [2, 3]
    assert tf.broadcast_to(tf.placeholder(tf.float32, [None, 3]),
                           tf.placeholder(tf.int32, [2])).shape.as_list() == [None, 3]
    with pytest.raises(ValueError, match="^Dimensions must be equal, but are 2 and 3 for '{{node BroadcastTo"):
        tf.broadcast_to(X23, [3, 3])
    with pytest.raises(ValueError, match="^Shape must be at most rank 1 but is rank 2 for "):
        tf.broadcast_to(X23, [3])
    shape = tf.placeholder(tf.int32)
    assert run_error(tf.broadcast_to(X23, shape), {shape: [3, 3]}) == "Incompatible shapes: [2,3] vs. [3,3]"
    assert run_error(tf.broadcast_to(X23, shape), {shape: [1, 3]}) == (
        "Unable to broadcast tensor of shape [2,3] to tensor of shape [1,3]")
    assert run_error(tf.broadcast_to(X23, shape), {shape: [3]}) == (
        "Rank of input (2) must be no greater than rank of output shape (1).")


def test_gather_nd():
    points = tf.gather_nd(X23, [[1, 2], [0, 0]])
    assert points.op.type == "GatherNd" and [t.name for t in points.op.inputs] == [
        "GatherNd/params:0", "GatherNd/indices:0"]
    check_tensor(points, np.array([5, 0], np.float32))
    check_tensor(tf.gather_nd(X23, [[1], [0]]), X23[[1, 0]])
    check_tensor(tf.gather_nd(X23, [[[1, 2]], [[0, 1]]]), np.array([[5], [1]], np.float32))
    check_tensor(tf.gather_nd(X23, np.zeros((0, 2), np.int32)), np.zeros(0, np.float32))
    check_tensor(tf.gather_nd(tf.constant([["a", "b"]]), [[0, 1]]), np.array([b"b"], object))
    assert tf.gather_nd(tf.placeholder(tf.float32), [[1, 2]]).shape.ndims is None
    assert tf.gather_nd(X23, tf.placeholder(tf.int32, [None, 1])).shape.as_list() == [None, 3]
    with pytest.raises(ValueError, match=r"^indices.shape\[-1\] must be <= params.rank, but saw indices shape: "
                       r"\[1,3\] and params shape: \[2,3\] for "):
        tf.gather_nd(X23, [[1, 2, 3]])
    with pytest.raises(ValueError, match="^Shape must be at least rank 1 but is rank 0 for "):
        tf.gather_nd(X23, 1)
    with pytest.raises(TypeError, match="^Value passed to parameter 'indices' has DataType float32 not in list of "
                       "allowed values: int16, int32, int64$"):
        tf.gather_nd(X23, [])
    indices = tf.placeholder(tf.int32)
    gathered = tf.gather_nd(X23, indices, name="lookup")
    assert run_error(gathered, {indices: [[0, 0], [2, 0]]}) == (
        "indices[1] = [2, 0] does not index into param shape [2,3], node name: lookup")
    assert run_error(gathered, {indices: [[[0, 1]], [[1, -1]]]}) == (
        "indices[1,0] = [1, -1] does not index into param shape [2,3], node name: lookup")
    assert run_error(gathered, {indices: 1}) == "indices must be at least a vector"


def test_is_tensor():
    assert tf.is_tensor(tf.constant(1)) and tf.is_tensor(tf.Variable(1))
    assert not tf.is_tensor(1) and not tf.is_tensor(np.ones(2))


def test_gather_nd_batch_dims():
    """TF's values, static shapes and errors for gather_nd with batch dimensions, and its gradient."""
    p = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    check_op(lambda p: tf.gather_nd(p, [[[2], [0]], [[1], [1]]], batch_dims=1), [p],
             np.array([[[8, 9, 10, 11], [0, 1, 2, 3]], [[16, 17, 18, 19], [16, 17, 18, 19]]], np.float32), grad=True)
    check_op(lambda p: tf.gather_nd(p, [[[[3], [0]], [[1], [2]], [[0], [0]]], [[[1], [1]], [[2], [3]], [[3], [3]]]],
                                    batch_dims=2), [p],
             np.array([[[3, 0], [5, 6], [8, 8]], [[13, 13], [18, 19], [23, 23]]], np.float32))
    check_op(lambda p: tf.gather_nd(p, np.array([[1, 2], [0, 3]], np.int64), batch_dims=1), [p],
             np.array([6, 15], np.float32))
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, [None, 3, 4])
        assert tf.gather_nd(ph, [[[2, 1]], [[0, 0]]], batch_dims=1).shape.as_list() == [2, 1]
        with pytest.raises(ValueError, match="tf.gather_nd does not allow negative batch_dims."):
            tf.gather_nd(p, [[1], [0]], batch_dims=-1)
        with pytest.raises(ValueError, match=r"Argument `batch_dims` = 2 must be less than rank\(`indices`\) = 2"):
            tf.gather_nd(p, [[1], [0]], batch_dims=2)
