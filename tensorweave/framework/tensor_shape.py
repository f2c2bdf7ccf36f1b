"""Partial shapes for static shape inference: `Dimension` and `TensorShape`, in TF1's or TF2's form.

Indexing and iterating a `TensorShape` give `Dimension`s under TF1 behaviour and plain ints or None under
TF2's (`tf.enable_v2_tensorshape()`, or `disable_eager_execution()` alone: framework/tf2.py); `dims` is a
list of `Dimension`s and `as_list()` a list of ints in both. Library code reads sizes through `dims`,
`as_list()` or `dimension_value(shape[i])`, which mean the same in both forms.

A `TensorShape` is unknown (`dims is None`), or a list of `Dimension`s each known (an int >= 0) or
unknown (None). Invariant: `Dimension` values never change after construction, so known dimensions
may be shared between shapes (small ones come from a cache: building `TensorShape([2, 3])` is on the
graph-building hot path). Unknown dimensions are always fresh objects, because TF1's shape equality
is list equality of `Dimension`s, where an unknown dimension equals only itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tensorweave.formats import protos
from tensorweave.framework import tf2
from tensorweave.platform.tf_export import tf_export

_V2 = tf2.BEHAVIOR


@tf_export("Dimension")
class Dimension:
    """The size of one dimension of a shape: an int >= 0, or None when unknown."""

    __slots__ = ("_value",)

    def __init__(self, value: Any) -> None:
        if value is None:
            self._value = None
        elif isinstance(value, int):  # bool included: TF keeps the value as given
            if value < 0:
                raise ValueError(f"Dimension {value} must be >= 0")
            self._value = value
        elif isinstance(value, Dimension):
            self._value = value._value
        else:
            try:
                number = int(value.__index__())  # ints of any kind; floats and strings are refused
            except AttributeError:
                raise TypeError(f"Dimension value must be integer or None or have an __index__ method, got value "
                                f"'{value!r}' with type '{type(value)!r}'") from None
            if number < 0:
                raise ValueError(f"Dimension {number} must be >= 0")
            self._value = number

    @property
    def value(self) -> int | None:
        """The size, or None if unknown."""
        return self._value

    def __repr__(self) -> str:
        return f"Dimension({self._value!r})"

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)

    def __eq__(self, other: Any) -> Any:
        # None (not False) when either side is unknown: "unknown" is neither equal nor different.
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return None
        return self._value == other._value

    def __ne__(self, other: Any) -> Any:
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return None
        return self._value != other._value

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        return bool(self._value)

    def __int__(self) -> int:
        return self._value  # type: ignore[return-value]

    def __index__(self) -> int:
        return self._value  # type: ignore[return-value]

    def is_compatible_with(self, other: Any) -> bool:
        """True when both could be the same size: either is unknown or both are equal."""
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._value is None or other._value is None or self._value == other._value

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raise ValueError unless `other` is compatible with this dimension."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other: Any) -> Dimension:
        """The most specific dimension compatible with both; ValueError if they conflict."""
        if other.__class__ is not Dimension:
            try:
                other = as_dimension(other)
            except (TypeError, ValueError):
                return NotImplemented
        value = self._value if self._value is not None else other._value
        if value is None:
            return Dimension(None)
        if other._value is not None and other._value != value:
            raise ValueError(f"Dimensions {self} and {other} are not compatible")
        return as_dimension(value)

    def _combine(self, other: Dimension, operation: Any) -> Dimension:
        """Apply an arithmetic operation; an unknown operand makes the result unknown."""
        if self._value is None or other._value is None:
            return Dimension(None)
        return Dimension(operation(self._value, other._value))

    def __add__(self, other: Any) -> Dimension:
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._combine(other, int.__add__)

    def __radd__(self, other: Any) -> Dimension:
        return self + other

    def __sub__(self, other: Any) -> Dimension:
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._combine(other, int.__sub__)

    def __rsub__(self, other: Any) -> Dimension:
        return as_dimension(other)._combine(self, int.__sub__)

    def __mul__(self, other: Any) -> Dimension:
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._combine(other, int.__mul__)

    def __rmul__(self, other: Any) -> Dimension:
        return self * other

    def __floordiv__(self, other: Any) -> Dimension:
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._combine(other, int.__floordiv__)

    def __rfloordiv__(self, other: Any) -> Dimension:
        return as_dimension(other)._combine(self, int.__floordiv__)

    def __truediv__(self, other: Any) -> Dimension:
        raise TypeError(f"unsupported operand type(s) for /: 'Dimension' and '{type(other).__name__}', "
                        "please use // instead")

    def __rtruediv__(self, other: Any) -> Dimension:
        raise TypeError(f"unsupported operand type(s) for /: '{type(other).__name__}' and 'Dimension', "
                        "please use // instead")

    def __mod__(self, other: Any) -> Dimension:
        return self._combine(as_dimension(other), int.__mod__)

    def __rmod__(self, other: Any) -> Dimension:
        return as_dimension(other) % self

    def _compare(self, other: Any, operation: Any) -> bool | None:
        other = as_dimension(other)
        if self._value is None or other._value is None:
            return None
        return operation(self._value, other._value)

    def __lt__(self, other: Any) -> bool | None:
        return self._compare(other, int.__lt__)

    def __le__(self, other: Any) -> bool | None:
        return self._compare(other, int.__le__)

    def __gt__(self, other: Any) -> bool | None:
        return self._compare(other, int.__gt__)

    def __ge__(self, other: Any) -> bool | None:
        return self._compare(other, int.__ge__)

    def __reduce__(self) -> tuple[Any, tuple[int | None]]:
        return Dimension, (self._value,)


_KNOWN_DIMENSIONS = [Dimension(size) for size in range(1025)]


def as_dimension(value: Any) -> Dimension:
    """Return `value` if it is a Dimension, else a Dimension of it (None means unknown)."""
    if isinstance(value, Dimension):
        return value
    if value.__class__ is int and 0 <= value <= 1024:
        return _KNOWN_DIMENSIONS[value]
    return Dimension(value)


@tf_export("compat.dimension_value", "dimension_value")
def dimension_value(dimension: Any) -> int | None:
    """The plain value of a Dimension (int or None); other values pass through, as in TF's compat helper."""
    if isinstance(dimension, Dimension):
        return dimension._value
    return dimension


@tf_export("TensorShape")
class TensorShape:
    """A possibly-partial shape: unknown rank, or a list of known or unknown dimensions."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Any) -> None:
        if dims is None:
            self._dims = None
        elif type(dims) is list or type(dims) is tuple:
            known = _KNOWN_DIMENSIONS
            self._dims = result = []
            append = result.append
            for d in dims:
                if d.__class__ is int and 0 <= d <= 1024:
                    append(known[d])
                elif d.__class__ is Dimension:
                    append(d)
                elif d is None:
                    append(Dimension(None))
                else:
                    append(as_dimension(d))
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, protos.TensorShapeProto):  # what Operation.get_attr gives for a shape attr
            self._dims = None if dims.unknown_rank else [as_dimension(None if d.size == -1 else d.size)
                                                          for d in dims.dim]
        else:
            try:
                dims_iter = iter(dims)
            except TypeError:
                self._dims = [as_dimension(dims)]
            else:
                self._dims = [_dimension_in(dims, d) for d in dims_iter]

    def __repr__(self) -> str:
        if self._dims is not None and _V2["tensorshape"]:
            return f"TensorShape({self.as_list()!r})"
        return f"TensorShape({self._dims!r})"

    def __str__(self) -> str:
        dims = self._dims
        if dims is None:
            return "<unknown>"
        if _V2["tensorshape"]:
            dims = self.as_list()
        if len(dims) == 1:
            return f"({dims[0]},)"
        return "(" + ", ".join(str(d) for d in dims) + ")"

    @property
    def rank(self) -> int | None:
        """The number of dimensions, or None if unknown."""
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self) -> int | None:
        """The number of dimensions, or None if unknown (TF1's name for `rank`)."""
        return None if self._dims is None else len(self._dims)

    @property
    def dims(self) -> list[Dimension] | None:
        """The list of Dimensions, or None if the rank is unknown."""
        return self._dims

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __iter__(self) -> Iterator[Any]:
        """The Dimensions (TF1), or their ints and Nones (TF2)."""
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        if _V2["tensorshape"]:
            return iter(self.as_list())
        return iter(self._dims)

    def __getitem__(self, key: Any) -> Any:
        """A slice is a TensorShape; one index is a Dimension (TF1) or an int or None (TF2)."""
        dims = self._dims
        if dims is not None:
            if isinstance(key, slice):
                return _shape_of(dims[key])
            if _V2["tensorshape"]:
                try:
                    return dims[key]._value
                except (IndexError, TypeError):
                    return tuple(dims)[key]._value  # raises again, with the message of TF's dims (a tuple)
            return dims[key]
        if not isinstance(key, slice):
            return None if _V2["tensorshape"] else Dimension(None)
        if key.step is not None:
            raise ValueError("Steps are not yet handled")
        start = 0 if key.start is None else key.start
        stop = key.stop
        # Without a rank only a non-negative [start:stop] slice has a known length.
        if stop is None or start < 0 or stop < 0:
            return unknown_shape()
        return unknown_shape(rank=max(stop - start, 0))

    def num_elements(self) -> int | None:
        """The number of elements, or None unless the shape is fully defined."""
        if not self.is_fully_defined():
            return None
        size = 1
        for dim in self._dims:  # type: ignore[union-attr]
            size *= dim._value  # type: ignore[operator]
        return size

    def merge_with(self, other: Any) -> TensorShape:
        """The most specific shape compatible with both; ValueError if they conflict."""
        other = as_shape(other)
        dims = self._dims
        if dims is None:
            return other
        other_dims = other._dims if other._dims is not None else [Dimension(None)] * len(dims)
        if len(dims) != len(other_dims):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        try:
            return _shape_of([dim.merge_with(other_dim) for dim, other_dim in zip(dims, other_dims)])
        except ValueError:
            raise ValueError(f"Shapes {self} and {other} are not compatible") from None

    def __add__(self, other: Any) -> TensorShape:
        return self.concatenate(other)

    def __radd__(self, other: Any) -> TensorShape:
        return as_shape(other).concatenate(self)

    def concatenate(self, other: Any) -> TensorShape:
        """Dimensions of `self` then `other`; unknown if either rank is unknown."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return _shape_of(self._dims + other._dims)

    def assert_same_rank(self, other: Any) -> None:
        """Raise ValueError if both ranks are known and differ."""
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank: int) -> None:
        """Raise ValueError unless the rank is unknown or equals `rank`."""
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank:d}")

    def with_rank(self, rank: int) -> TensorShape:
        """This shape with its rank pinned to `rank` (an unknown shape gains `rank` unknown dims)."""
        try:
            return self.merge_with(unknown_shape(rank=rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank:d}") from None

    def with_rank_at_least(self, rank: int) -> TensorShape:
        """This shape, after checking its rank is unknown or at least `rank`."""
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank:d}")
        return self

    def with_rank_at_most(self, rank: int) -> TensorShape:
        """This shape, after checking its rank is unknown or at most `rank`."""
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank:d}")
        return self

    def is_compatible_with(self, other: Any) -> bool:
        """True when some fully-defined shape is described by both."""
        other = as_shape(other)
        if self._dims is not None and other._dims is not None:
            if len(self._dims) != len(other._dims):
                return False
            for dim, other_dim in zip(self._dims, other._dims):
                if not dim.is_compatible_with(other_dim):
                    return False
        return True

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raise ValueError unless `other` is compatible with this shape."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def most_specific_compatible_shape(self, other: Any) -> TensorShape:
        """The most specific shape that both `self` and `other` are compatible with."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return unknown_shape()
        return _shape_of([d1 if d1 == d2 else Dimension(None) for d1, d2 in zip(self._dims, other._dims)])

    def is_fully_defined(self) -> bool:
        """True when the rank and every dimension are known."""
        dims = self._dims
        return dims is not None and all(dim._value is not None for dim in dims)

    def assert_is_fully_defined(self) -> None:
        """Raise ValueError unless the shape is fully defined."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def as_list(self) -> list[int | None]:
        """The dimensions as ints, None for unknown ones."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return [dim._value for dim in self._dims]

    def _values(self) -> tuple | None:
        return None if self._dims is None else tuple(d._value for d in self._dims)

    def __eq__(self, other: Any) -> Any:
        """Equal dimension values, unknown ones included ((?, 2) == (?, 2)), as TF 2.x compares shapes."""
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def as_proto(self) -> Any:
        """This shape as a TensorShapeProto (an unknown dimension has size -1)."""
        if self._dims is None:
            return protos.TensorShapeProto(unknown_rank=True)
        return protos.TensorShapeProto(dim=[protos.TensorShapeProto.Dim(size=-1 if d._value is None else d._value)
                                            for d in self._dims])

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        return TensorShape, (self._dims,)

    def __concat__(self, other: Any) -> TensorShape:
        return self.concatenate(other)


def _dimension_in(dims: Any, d: Any) -> Dimension:
    try:
        return as_dimension(d)
    except TypeError as e:
        raise TypeError(f"Failed to convert '{dims!r}' to a shape: '{d!r}'could not be converted to a dimension. A "
                        "shape should either be single dimension (e.g. 10), or an iterable of dimensions (e.g. "
                        "[1, 10, None]).") from e


def _shape_of(dims: list[Dimension]) -> TensorShape:
    """Wrap a list that already holds Dimensions, skipping the per-element conversion."""
    shape = TensorShape.__new__(TensorShape)
    shape._dims = dims
    return shape


def as_shape(shape: Any) -> TensorShape:
    """Return `shape` if it is a TensorShape, else a TensorShape of it."""
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)


def unknown_shape(rank: int | None = None, **kwargs: Any) -> TensorShape:
    """A shape of unknown rank, or of `rank` unknown dimensions (`ndims=` is TF1's older spelling)."""
    if rank is None and "ndims" in kwargs:
        rank = kwargs.pop("ndims")
    if kwargs:
        raise TypeError(f"Unknown argument: {kwargs}")
    if rank is None:
        return TensorShape(None)
    return _shape_of([Dimension(None) for _ in range(rank)])


def scalar() -> TensorShape:
    """The shape of a scalar (deprecated in TF1 in favour of `TensorShape([])`)."""
    return TensorShape([])


def vector(length: int | None) -> TensorShape:
    """The shape of a vector of `length` (deprecated in TF1 in favour of `TensorShape([length])`)."""
    return TensorShape([length])


def matrix(rows: int | None, cols: int | None) -> TensorShape:
    """The shape of a rows x cols matrix (deprecated in TF1 in favour of `TensorShape([rows, cols])`)."""
    return TensorShape([rows, cols])


@tf_export("compat.dimension_at_index", "dimension_at_index")
def dimension_at_index(shape: TensorShape, index: int) -> Dimension:
    """The Dimension at `index`, or an unknown Dimension when the rank is unknown."""
    assert isinstance(shape, TensorShape)
    if shape._dims is None:
        return Dimension(None)
    return shape._dims[index]


def shape_string(shape: Any, unknown_rank: str = "<unknown>") -> str:
    """A shape as TF's C++ prints it in errors: '[2,3]', '[?,784]'. An unknown rank (or None) is
    `unknown_rank`: '<unknown>' as the runtime's TensorShape::DebugString, '?' as shape inference's
    InferenceContext::DebugString."""
    if shape is None:
        return unknown_rank
    if isinstance(shape, TensorShape):
        if shape.ndims is None:
            return unknown_rank
        shape = shape.as_list()
    return "[" + ",".join("?" if d is None or d < 0 else str(d) for d in shape) + "]"


def merge_shapes(a: TensorShape, b: TensorShape) -> TensorShape:
    """The merge of two partial shapes, failing with the messages of TF's C++ shape inference."""
    if a.ndims is None:
        return b
    if b.ndims is None:
        return a
    if a.ndims != b.ndims:
        raise ValueError(f"Shapes must be equal rank, but are {a.ndims} and {b.ndims}")
    merged = []
    for i, (x, y) in enumerate(zip(a.as_list(), b.as_list())):
        if x is not None and y is not None and x != y:
            raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes are "
                             f"{shape_string(a)} and {shape_string(b)}.")
        merged.append(x if x is not None else y)
    return TensorShape(merged)
