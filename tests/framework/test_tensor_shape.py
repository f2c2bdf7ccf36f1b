"""Dimension and TensorShape in TF1 mode (Dimension objects), checked against real TensorFlow.

Strings and messages were recorded from TF with `disable_v2_tensorshape()`; where TF2 changed the
TF1 behaviour (Dimension conversion, shape equality and hashing) the TF1.15 behaviour is asserted.
"""

import pickle

import numpy as np
import pytest

from tensorweave.framework import dtypes
from tensorweave.framework import tensor_shape as ts
from tensorweave.framework.tensor_shape import Dimension as D
from tensorweave.framework.tensor_shape import TensorShape as TS


def test_construction_and_strings():
    shape = TS([2, None])
    assert repr(shape) == "TensorShape([Dimension(2), Dimension(None)])" and str(shape) == "(2, ?)"
    assert repr(TS(None)) == "TensorShape(None)" and str(TS(None)) == "<unknown>"
    assert repr(TS([])) == "TensorShape([])" and str(TS([])) == "()"
    assert str(TS([3])) == "(3,)" and str(TS([None])) == "(?,)"
    assert repr(TS(3)) == "TensorShape([Dimension(3)])"
    assert TS((1, 2)).as_list() == [1, 2] and TS(iter([1, 2])).as_list() == [1, 2]
    assert TS(TS([1])).as_list() == [1] and TS([D(2), None]).as_list() == [2, None]
    assert TS([np.int64(3), True]).as_list() == [3, True]
    assert repr(D(None)) == "Dimension(None)" and str(D(None)) == "?"
    assert repr(D(3)) == "Dimension(3)" and str(D(3)) == "3"


_NOT_A_DIMENSION = "Dimension value must be integer or None or have an __index__ method, got value "


@pytest.mark.parametrize("value,error,message", [
    ([-1], ValueError, "Dimension -1 must be >= 0"),
    ([1.5], TypeError, _NOT_A_DIMENSION + "'1.5' with type '<class 'float'>'"),
    (1.5, TypeError, _NOT_A_DIMENSION + "'1.5' with type '<class 'float'>'"),
    ([3.0], TypeError, _NOT_A_DIMENSION + "'3.0' with type '<class 'float'>'"),
    (["a"], TypeError, _NOT_A_DIMENSION + "''a'' with type '<class 'str'>'"),
    ("ab", TypeError, "Failed to convert ''ab'' to a shape: ''a''could not be converted to a dimension. A shape "
                      "should either be single dimension (e.g. 10), or an iterable of dimensions (e.g. [1, 10, "
                      "None])."),
    ([dtypes.float32], TypeError, _NOT_A_DIMENSION + "'tf.float32' with type '<class "
                                                     "'tensorweave.framework.dtypes.DType'>'"),
])
def test_bad_construction(value, error, message):
    with pytest.raises(error) as info:
        TS(value)
    assert str(info.value) == message


def test_dims_indexing_and_slicing():
    shape = TS([2, None])
    assert shape.dims == shape.dims and [repr(d) for d in shape.dims] == ["Dimension(2)", "Dimension(None)"]
    assert TS(None).dims is None
    assert isinstance(shape[0], D) and shape[0].value == 2 and shape[1].value is None
    assert shape[-1].value is None and shape[0:1].as_list() == [2]
    assert TS([1, 2, 3])[::2].as_list() == [1, 3] and TS([1, 2, 3])[1:-1].as_list() == [2]
    with pytest.raises(IndexError):
        TS([2, 3])[5]
    assert TS(None)[1].value is None and TS(None)[-1].value is None
    assert TS(None)[1:3].as_list() == [None, None]
    assert TS(None)[2:1].as_list() == []
    for key in (slice(None), slice(1, None), slice(None, -1), slice(-2, None)):
        assert TS(None)[key].dims is None
    with pytest.raises(ValueError, match="^Steps are not yet handled$"):
        TS(None)[::2]


def test_len_iter_bool_rank():
    assert len(TS([1, 2])) == 2 and [d.value for d in TS([1, None])] == [1, None]
    with pytest.raises(ValueError, match=r"^Cannot take the length of shape with unknown rank\.$"):
        len(TS(None))
    with pytest.raises(ValueError, match=r"^Cannot iterate over a shape with unknown rank\.$"):
        iter(TS(None))
    assert bool(TS([])) and bool(TS([1])) and not bool(TS(None))
    assert TS([1, 2]).ndims == 2 and TS([1, 2]).rank == 2 and TS(None).ndims is None and TS(None).rank is None


def test_merge_with():
    assert TS([2, None]).merge_with([None, 3]).as_list() == [2, 3]
    assert TS([None, 2]).merge_with(TS([3, None])).as_list() == [3, 2]
    assert TS(None).merge_with([1]).as_list() == [1] and TS([1]).merge_with(None).as_list() == [1]
    with pytest.raises(ValueError) as info:
        TS([2, 3]).merge_with(TS([2, 4]))
    assert str(info.value) == "Shapes (2, 3) and (2, 4) are not compatible"
    with pytest.raises(ValueError) as info:
        TS([2, 3]).merge_with(TS([2, None, 3]))
    assert str(info.value) == "Shapes (2, 3) and (2, ?, 3) are not compatible"


def test_compatibility():
    assert TS([1, 2]).is_compatible_with([1, None]) and TS(None).is_compatible_with([1])
    assert TS([1, 2]).is_compatible_with(TS(None)) and not TS([1, 2]).is_compatible_with([1, 2, 3])
    with pytest.raises(ValueError) as info:
        TS([1, 2]).assert_is_compatible_with([1, 3])
    assert str(info.value) == "Shapes (1, 2) and [1, 3] are incompatible"
    assert TS([1, 2]).most_specific_compatible_shape([1, 3]).as_list() == [1, None]
    assert TS([1, 2]).most_specific_compatible_shape([1, 2]).as_list() == [1, 2]
    assert TS([1, 2]).most_specific_compatible_shape([1, 3, 4]).dims is None
    assert TS([1, 2]).most_specific_compatible_shape(None).dims is None


def test_fully_defined_and_num_elements():
    assert TS([2, 3]).is_fully_defined() and not TS([1, None]).is_fully_defined()
    with pytest.raises(ValueError, match=r"^Shape \(1, \?\) is not fully defined$"):
        TS([1, None]).assert_is_fully_defined()
    with pytest.raises(ValueError, match="^Shape <unknown> is not fully defined$"):
        TS(None).assert_is_fully_defined()
    assert TS([2, 3]).num_elements() == 6 and TS([]).num_elements() == 1
    assert TS([2, None]).num_elements() is None and TS(None).num_elements() is None
    assert TS([1, None]).as_list() == [1, None]
    with pytest.raises(ValueError, match=r"^as_list\(\) is not defined on an unknown TensorShape\.$"):
        TS(None).as_list()


def test_concatenate():
    assert TS([1]).concatenate([2, None]).as_list() == [1, 2, None]
    assert TS([1]).concatenate(None).dims is None and TS(None).concatenate([1]).dims is None
    assert (TS([1, 2]) + TS([3])).as_list() == [1, 2, 3] and (TS([1, 2]) + [3]).as_list() == [1, 2, 3]
    assert ([3] + TS([1, 2])).as_list() == [3, 1, 2]


def test_rank_checks():
    assert TS([1, 2]).with_rank(2).as_list() == [1, 2] and TS(None).with_rank(2).as_list() == [None, None]
    cases = [
        (lambda: TS([1, 2]).with_rank(3), "Shape (1, 2) must have rank 3"),
        (lambda: TS([1, 2]).with_rank_at_least(3), "Shape (1, 2) must have rank at least 3"),
        (lambda: TS([1, 2]).with_rank_at_most(1), "Shape (1, 2) must have rank at most 1"),
        (lambda: TS([1, 2]).assert_has_rank(3), "Shape (1, 2) must have rank 3"),
        (lambda: TS([1, 2]).assert_same_rank([1]), "Shapes (1, 2) and (1,) must have the same rank"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == message
    assert TS(None).with_rank_at_most(1).dims is None and TS(None).with_rank_at_least(4).dims is None
    TS(None).assert_same_rank([1])
    TS(None).assert_has_rank(5)


def test_equality_compares_dimension_values():
    assert TS([1, 2]) == TS([1, 2]) and TS([1, 2]) == [1, 2] and TS([1]) == (1,)
    assert TS(None) == TS(None) and not TS([1]) == None  # noqa: E711 - exercises __eq__ with None
    assert not TS([1]) == "a"
    assert TS([1, 2]) != TS([1, 3]) and TS([1]) != TS([1, 2])
    # TF 2.x (v1 behaviour too) compares the dimension values: unknown equals unknown.
    assert TS([1, None]) == TS([1, None]) and (TS([1, None]) != TS([1, None])) is False
    assert (TS(None) != TS(None)) is False and TS(None) != TS([1])
    assert hash(TS([1, None])) == hash(TS([1, None])) and {TS([1, 2]): 1}[TS([1, 2])] == 1


def test_helpers():
    assert ts.unknown_shape().dims is None and ts.unknown_shape(rank=2).as_list() == [None, None]
    assert ts.unknown_shape(ndims=1).as_list() == [None]
    with pytest.raises(TypeError, match=r"^Unknown argument: \{'bad': 1\}$"):
        ts.unknown_shape(bad=1)
    assert ts.scalar().as_list() == [] and ts.vector(3).as_list() == [3]
    assert ts.matrix(2, None).as_list() == [2, None]
    shape = TS([1])
    assert ts.as_shape(shape) is shape and ts.as_shape([1]).as_list() == [1]
    assert ts.dimension_value(D(3)) == 3 and ts.dimension_value(D(None)) is None
    assert ts.dimension_value(3) == 3 and ts.dimension_value(None) is None
    assert ts.dimension_at_index(TS([2, 3]), 1).value == 3
    assert ts.dimension_at_index(TS(None), 1).value is None
    with pytest.raises(IndexError):
        ts.dimension_at_index(TS([2]), 3)
    dim = D(7)
    assert ts.as_dimension(dim) is dim and ts.as_dimension(4).value == 4


def test_pickle():
    shape = pickle.loads(pickle.dumps(TS([2, None])))
    assert type(shape) is TS and shape.as_list() == [2, None]
    assert pickle.loads(pickle.dumps(TS(None))).dims is None
    assert pickle.loads(pickle.dumps(D(5))).value == 5


def test_dimension_conversion():
    assert D(D(3)).value == 3 and D(True).value is True
    assert D(np.int32(4)).value == 4 and D(10**20).value == 10**20 and D(None).value is None
    with pytest.raises(ValueError, match="^Dimension -1 must be >= 0$"):
        D(-1)
    for value in (2.5, 1.0, "3", np.float64(2.0)):
        with pytest.raises(TypeError, match="^Dimension value must be integer or None or have an __index__"):
            D(value)
    assert [bool(D(0)), bool(D(2)), bool(D(None))] == [False, True, False]
    assert int(D(2)) == 2 and D(2).__index__() == 2 and list(range(D(3))) == [0, 1, 2]
    with pytest.raises(TypeError, match="unhashable type: 'Dimension'"):
        hash(D(2))


def test_dimension_arithmetic():
    assert (D(2) + D(None)).value is None and (D(2) + 3).value == 5 and (3 + D(2)).value == 5
    assert (D(4) * D(2)).value == 8 and (5 * D(2)).value == 10 and (D(2) * None).value is None
    assert (D(7) // D(2)).value == 3 and (5 // D(2)).value == 2 and (None // D(2)).value is None
    assert (D(7) % D(2)).value == 1 and (5 % D(2)).value == 1 and (D(None) // 2).value is None
    assert (5 - D(2)).value == 3
    with pytest.raises(ValueError, match="^Dimension -1 must be >= 0$"):
        D(2) - D(3)
    with pytest.raises(ValueError, match="^Dimension -3 must be >= 0$"):
        D(2) - 5
    with pytest.raises(TypeError) as info:
        D(7) / D(2)
    assert str(info.value) == "unsupported operand type(s) for /: 'Dimension' and 'Dimension', please use // instead"
    with pytest.raises(TypeError) as info:
        7 / D(2)
    assert str(info.value) == "unsupported operand type(s) for /: 'int' and 'Dimension', please use // instead"
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Dimension' and 'list'"):
        D(2) + [1]
    with pytest.raises(ZeroDivisionError):
        D(6) // 0


def test_dimension_comparisons():
    assert (D(2) < D(3)) is True and (D(2) >= 3) is False and (5 < D(3)) is False
    assert (D(2) < D(None)) is None and (D(None) <= D(None)) is None and (D(3) > None) is None
    assert (D(2) == D(2)) is True and (D(2) == 2) is True and (D(3) == 3.0) is False
    assert (D(2) == D(None)) is None and (D(None) == D(None)) is None and (D(2) != D(None)) is None
    assert (D(2) == None) is None  # noqa: E711 - unknown compares as None
    assert (D(2) == "a") is False and (D(2) != "a") is True


def test_dimension_compatibility_and_merge():
    assert D(2).is_compatible_with(None) and not D(2).is_compatible_with(3)
    assert D(None).merge_with(3).value == 3 and D(2).merge_with(None).value == 2
    assert D(None).merge_with(None).value is None and D(2).merge_with(D(2)).value == 2
    for call in (lambda: D(2).merge_with(D(3)), lambda: D(2).merge_with(3),
                 lambda: D(2).assert_is_compatible_with(3)):
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == "Dimensions 2 and 3 are not compatible"
