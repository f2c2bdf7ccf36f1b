"""The TensorList ops a TF2 graph's TensorArray is built from: values, static shapes, the errors real TF 2.21
raises (messages recorded from it) and their gradients."""

from __future__ import annotations

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.ops import list_ops
from tests.op_testing import check_gradient


def _reserve(n, shape=None):
    return list_ops.tensor_list_reserve(shape, n, tf.float32)


def _run(t):
    with tf.Session() as s:
        return s.run(t)


def _fails(t, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _run(t)


def test_reserve_set_get_and_stack_fill_unset_items_with_zeros():
    lst = list_ops.tensor_list_set_item(_reserve(3, [2]), 1, [1., 2.])
    item = list_ops.tensor_list_get_item(lst, 0, tf.float32)
    stacked = list_ops.tensor_list_stack(lst, tf.float32)
    assert item.shape.as_list() == [2] and stacked.shape.as_list() == [None, 2]
    got = _run([item, stacked, list_ops.tensor_list_length(lst)])
    assert got[0].tolist() == [0., 0.] and got[1].tolist() == [[0., 0.], [1., 2.], [0., 0.]] and got[2] == 3


def test_a_list_is_a_value_and_an_index_may_be_set_again():
    base = _reserve(2, [1])
    once = list_ops.tensor_list_set_item(base, 0, [1.])
    twice = list_ops.tensor_list_set_item(once, 0, [3.])
    got = _run([list_ops.tensor_list_stack(t, tf.float32) for t in (base, once, twice)])
    assert [v.ravel().tolist() for v in got] == [[0., 0.], [1., 0.], [3., 0.]]


def test_get_item_errors_as_tf():
    _fails(list_ops.tensor_list_get_item(_reserve(3), 1, tf.float32),
           r"Trying to read an uninitialized tensor but element_shape is not fully defined: <unknown> and no list "
           r"element is set\.")
    _fails(list_ops.tensor_list_get_item(_reserve(3, [None, 2]), 1, tf.float32), r"defined: \[\?,2\] and no")
    _fails(list_ops.tensor_list_get_item(_reserve(3, [2]), 5, tf.float32),
           r"Trying to access element 5 in a list with 3 elements\.")
    with pytest.raises(ValueError, match="^Expected list with element dtype int32 but got list with element dtype "
                                         "float for '{{node TensorListGetItem"):
        list_ops.tensor_list_get_item(_reserve(3, [2]), 1, tf.int32)
    merged = list_ops.tensor_list_get_item(_reserve(2, [None, 2]), 0, tf.float32, element_shape=[3, None])
    assert merged.shape.as_list() == [3, 2] and _run(merged).shape == (3, 2)


def test_set_item_errors_as_tf():
    _fails(list_ops.tensor_list_set_item(_reserve(3, [2]), 3, [1., 2.]),
           r"Trying to modify element 3 in a list with 3 elements\.")
    _fails(list_ops.tensor_list_set_item(_reserve(3, [2]), 1, [1, 2]),
           "Invalid data types; op elements int32 but list elements float")
    _fails(list_ops.tensor_list_set_item(_reserve(3, [2]), 1, tf.placeholder_with_default([1., 2., 3.], None)),
           r"Tried to set a tensor with incompatible shape at a list index\. Item element shape: \[3\] list shape: "
           r"\[2\]")
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 3 and 2"):
        list_ops.tensor_list_set_item(_reserve(3, [2]), 1, [1., 2., 3.])
    grown = list_ops.tensor_list_set_item(_reserve(0), 2, [1., 2.], resize_if_index_out_of_bounds=True)
    assert _run(list_ops.tensor_list_stack(grown, tf.float32)).tolist() == [[0., 0.], [0., 0.], [1., 2.]]


def test_stack_errors_as_tf():
    _fails(list_ops.tensor_list_stack(_reserve(0), tf.float32),
           "Tried to stack elements of an empty list with non-fully-defined element_shape: <unknown>")
    assert _run(list_ops.tensor_list_stack(_reserve(0, [2]), tf.float32)).shape == (0, 2)
    _fails(list_ops.tensor_list_stack(_reserve(2), tf.float32),
           "Tried to stack list which only contains uninitialized tensors and has a non-fully-defined "
           "element_shape: <unknown>")
    counted = list_ops.tensor_list_stack(_reserve(2, [2]), tf.float32, num_elements=3)
    assert counted.shape.as_list() == [3, 2]
    _fails(counted, "Operation expected a list with 3 elements but got a list with 2 elements.")
    from_rows = list_ops.tensor_list_from_tensor([[1., 2.]], [2])
    _fails(list_ops.tensor_list_stack(from_rows, tf.float32, element_shape=tf.placeholder_with_default([3], None)),
           r"PartialTensorShape: Incompatible shapes during merge: \[3\] vs\. \[2\]")


def test_resize_gather_scatter_and_element_shape():
    lst = list_ops.tensor_list_set_item(_reserve(2, [2]), 0, [1., 2.])
    assert _run(list_ops.tensor_list_stack(list_ops.TensorListResize(lst, 4), tf.float32)).tolist() == \
        [[1., 2.], [0., 0.], [0., 0.], [0., 0.]]
    _fails(list_ops.TensorListResize(lst, -1), "TensorListSlice expects size to be non-negative. Got: -1")
    rows = list_ops.tensor_list_from_tensor([[1., 2.], [3., 4.]], [2])
    gathered = list_ops.tensor_list_gather(rows, [1, 1, 0], tf.float32)
    assert gathered.shape.as_list() == [3, 2] and _run(gathered).tolist() == [[3., 4.], [3., 4.], [1., 2.]]
    _fails(list_ops.tensor_list_gather(rows, [2], tf.float32), "Index 2 out o range; list only has 2 elements.")
    # a list whose own element shape is partial words it otherwise (TF 2.21's, whatever element_shape is given)
    unknown = list_ops.tensor_list_set_item(_reserve(3, None), 0, [1., 2.])
    _fails(list_ops.tensor_list_gather(unknown, [0, -1], tf.float32, element_shape=[2]),
           "Trying to gather element -1 in a list with 3 elements.")
    scattered = list_ops.tensor_list_scatter([[1.], [2.]], [3, 1], [1])
    assert _run(list_ops.tensor_list_stack(scattered, tf.float32)).ravel().tolist() == [0., 2., 0., 1.]
    _fails(list_ops.tensor_list_scatter([[1.], [2.]], [3], input_handle=_reserve(2, [1])),
           r"Expected len\(indices\) == tensor.shape\[0\], but saw: 1 vs. 2")
    assert _run(list_ops.TensorListElementShape(_reserve(2, [None, 3]), shape_type=tf.int32)).tolist() == [-1, 3]
    assert _run(list_ops.TensorListElementShape(_reserve(2), shape_type=tf.int32)) == -1
    _fails(list_ops.tensor_list_reserve([2], -1, tf.float32),
           "The num_elements to reserve must be a non negative number, but got -1")
    _fails(list_ops.tensor_list_from_tensor(1., []), r"Tensor must be at least a vector, but saw shape: \[\]")


def test_split_and_concat_as_tf():
    lst = list_ops.tensor_list_split(tf.range(5.), [None], tf.constant([2, 3], tf.int64))
    assert _run(list_ops.tensor_list_gather(lst, [0], tf.float32)).tolist() == [[0., 1.]]
    concat = list_ops.tensor_list_concat(lst, tf.float32)
    assert concat.shape.as_list() == [None] and _run(concat).tolist() == [0., 1., 2., 3., 4.]
    _fails(list_ops.tensor_list_split(tf.range(5.), None, tf.constant([2, 2], tf.int64)),
           "Unused values in tensor. Length of tensor: 5 Values used: 4")
    _fails(list_ops.tensor_list_concat(_reserve(2, [None]), tf.float32),
           "List contains uninitialized tensor at index 0 but leading_dims has only 0 elements.")
    assert _run(list_ops.tensor_list_concat(_reserve(2, [3]), tf.float32)).tolist() == [0.] * 6
    _fails(list_ops.tensor_list_concat(list_ops.tensor_list_from_tensor([1., 2.], []), tf.float32),
           "Concat requires elements to be at least vectors, found scalars instead.")


def test_list_gradients_check_numerically():
    def through_lists(x):
        rows = list_ops.tensor_list_from_tensor(x, [3])
        item = list_ops.tensor_list_get_item(rows, 1, tf.float32)
        lst = list_ops.tensor_list_set_item(rows, 0, tf.sin(item))
        lst = list_ops.tensor_list_scatter(x[1:3] * 2., [1, 2], input_handle=lst)
        gathered = list_ops.tensor_list_gather(lst, [0, 2], tf.float32)
        split = list_ops.tensor_list_split(tf.reshape(x, [-1]), [-1], tf.constant([4, 8], tf.int64))
        return [tf.reshape(list_ops.tensor_list_stack(lst, tf.float32), [4, 3]) * x, gathered,
                tf.reshape(list_ops.tensor_list_concat(split, tf.float32), [12]) ** 2]

    check_gradient(through_lists, [np.arange(12, dtype=np.float32).reshape(4, 3) / 10])


def test_push_back_and_pop_back_gradients():
    x = tf.constant([1., 2.])
    lst = list_ops.TensorListPushBack(list_ops.empty_tensor_list([2], tf.float32), x * 3.)
    _, back = list_ops.tensor_list_pop_back(lst, tf.float32, tf.TensorShape([2]))
    assert _run(tf.gradients(tf.reduce_sum(back * back), x)[0]).tolist() == [18., 36.]


def test_scatter_grown_holes_are_tfs_empty_tensors_and_concat_infers_unset_shapes():
    v = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    grown = list_ops.tensor_list_scatter(v, [0, 3], input_handle=_reserve(0))
    hole = _run(list_ops.tensor_list_get_item(grown, 1, tf.float32))
    assert hole.shape == (0,) and hole.dtype == np.float32  # TF's default tensor, not zeros
    np.testing.assert_array_equal(_run(list_ops.tensor_list_concat(grown, tf.float32)), [1.0, 2.0, 3.0, 4.0])
    _fails(list_ops.tensor_list_stack(grown, tf.float32, element_shape=[2]),
           r"PartialTensorShape: Incompatible shapes during merge: \[2\] vs. \[0\]")
    _fails(list_ops.tensor_list_gather(grown, [1, 2], tf.float32, element_shape=[2]),
           r"PartialTensorShape: Incompatible shapes during merge: \[2\] vs. \[0\]")
    # a list scattered afresh has unset items: zeros of the set items' one shape, as TF's
    fresh = list_ops.tensor_list_scatter(v, [0, 3])
    np.testing.assert_array_equal(_run(list_ops.tensor_list_concat(fresh, tf.float32)),
                                  [1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 3.0, 4.0])
    mixed = list_ops.tensor_list_set_item(list_ops.tensor_list_set_item(_reserve(3), 0, [[1.0, 2.0]]), 2,
                                          [[3.0, 4.0], [5.0, 6.0]])
    _fails(list_ops.tensor_list_concat(mixed, tf.float32),
           "List contains uninitialized tensor at index 1 but leading_dims has only 0 elements.")
    _fails(list_ops.tensor_list_concat(mixed, tf.float32, element_shape=[3, 2]),
           "First entry of element_shape input does not match the first dim of list element at index: 0 Expected: 3 "
           "Actual: 1")
    _fails(list_ops.tensor_list_gather(_reserve(3), [1], tf.float32),
           "Tried to gather uninitialized tensors from a list with non-fully-defined element_shape: <unknown>")


def test_set_item_in_place_keeps_every_earlier_list_a_value():
    base = list_ops.tensor_list_set_item(_reserve(3, [2]), 0, [1., 1.])
    a = list_ops.tensor_list_set_item(base, 1, [2., 2.])  # set in place: base reads its old items through the log
    b = list_ops.tensor_list_set_item(a, 1, [3., 3.])
    c = list_ops.tensor_list_set_item(base, 2, [4., 4.])  # base is no longer the newest: a copy
    pushed = list_ops.TensorListPushBack(a, [5., 5.])
    popped, last = list_ops.tensor_list_pop_back(pushed, tf.float32, [2])
    d = list_ops.tensor_list_set_item(popped, 0, [6., 6.])
    stacks = [list_ops.tensor_list_stack(t, tf.float32) for t in (base, a, b, c, pushed, popped, d)]
    firsts = [list_ops.tensor_list_get_item(t, 1, tf.float32) for t in (base, a, b)]
    values = _run(stacks + firsts + [last])
    z, one, two, three, four, five, six = ([v] * 2 for v in (0., 1., 2., 3., 4., 5., 6.))
    expected = [[one, z, z], [one, two, z], [one, three, z], [one, z, four], [one, two, z, five], [one, two, z],
                [six, two, z], z, two, three, five]
    for value, want in zip(values, expected):
        np.testing.assert_array_equal(value, want)


def test_tensor_list_set_shares_its_backing_list_only_while_newest():
    base = list_ops.TensorList(tf.float32, tf.TensorShape([]), -1, [0.0, 0.0, 0.0])
    a = base.set(1, 1.0)
    b = a.set(2, 2.0)
    assert a._items is base._items and b._items is base._items  # in place: O(1)
    assert [base.get(i) for i in range(3)] == [0.0, 0.0, 0.0] and a.items == [0.0, 1.0, 0.0]
    c = base.set(0, 3.0)  # base is older than a: it copies its own items first
    assert c._items is not b._items and c.items == [3.0, 0.0, 0.0] and b.items == [0.0, 1.0, 2.0]
