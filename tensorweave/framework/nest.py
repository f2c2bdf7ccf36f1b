"""TF's `tf.nest` (util/nest.py): flatten and rebuild nested lists, tuples, namedtuples, dicts and attrs classes.

The rules are TF's: dicts (any Mapping, OrderedDict included) flatten in sorted key order, mapping views
flatten as lists, strings, bytes, sets, arrays and Tensors are atoms, and `None` is an atom. The errors
carry TF's messages, including `assert_same_structure`'s report of where two structures differ.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator, Mapping, MappingView, MutableMapping, Sequence
from typing import Any

from tensorweave.framework.type_spec import composite_tensor_spec
from tensorweave.platform.tf_export import tf_export

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def _is_attrs(value: Any) -> bool:
    return hasattr(type(value), "__attrs_attrs__")


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and isinstance(getattr(type(value), "_fields", None), tuple)


@tf_export("nest.is_nested")
def is_nested(seq: Any) -> bool:
    """Whether `seq` is a structure nest descends into (a Sequence other than str/bytes, Mapping, view, attrs)."""
    if isinstance(seq, (str, bytes)):  # a bytearray is a sequence of ints, as in TF
        return False
    return isinstance(seq, (Sequence, Mapping, MappingView)) or _is_attrs(seq)


def _sorted_keys(mapping: Mapping) -> list:
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def _children(structure: Any, sort: Callable[[Mapping], list]) -> Iterator[Any]:
    """The direct children of a nested structure, in nest's deterministic order."""
    if isinstance(structure, Mapping):
        return (structure[key] for key in sort(structure))
    if _is_attrs(structure):
        return (getattr(structure, a.name) for a in type(structure).__attrs_attrs__)
    return iter(structure)


def flatten_with_tuple_paths(structure: Any) -> list[tuple[tuple, Any]]:
    """(path, atom) for each atom of `structure`, in `flatten`'s order; a path holds the keys and indices
    that lead to its atom."""
    flat: list[tuple[tuple, Any]] = []

    def visit(path: tuple, value: Any) -> None:
        if not is_nested(value):
            flat.append((path, value))
        elif isinstance(value, Mapping):
            for key in sorted(value):
                visit(path + (key,), value[key])
        elif _is_attrs(value):
            for a in type(value).__attrs_attrs__:
                visit(path + (a.name,), getattr(value, a.name))
        else:
            for index, child in enumerate(value):
                visit(path + (index,), child)

    visit((), structure)
    return flat


@tf_export("nest.flatten")
def flatten(structure: Any, expand_composites: bool = False) -> list:
    """The atoms of `structure`, depth first, dict values in sorted key order; `[structure]` for an atom."""
    flat: list = []

    def visit(value: Any) -> None:
        if is_nested(value):
            for child in _children(value, sorted):  # unsortable keys: Python's own TypeError, as in TF
                visit(child)
        else:
            flat.append(value)

    visit(structure)
    return flat


def _sequence_like(instance: Any, args: list) -> Any:
    """`args` rebuilt as the same kind of structure as `instance`."""
    if isinstance(instance, Mapping):
        by_key = dict(zip(_sorted_keys(instance), args))
        if isinstance(instance, MutableMapping):
            rebuilt = (collections.defaultdict(instance.default_factory)
                       if type(instance) is collections.defaultdict else type(instance)())
            for key in instance:
                rebuilt[key] = by_key[key]
            return rebuilt
        try:
            return type(instance)((key, by_key[key]) for key in instance)
        except TypeError as err:
            raise TypeError(f"Error creating an object of type {type(instance)} like {instance}. Note that it must "
                            "accept a single positional argument representing an iterable of key-value pairs, in "
                            f"addition to self. Cause: {err}") from None
    if isinstance(instance, MappingView):
        return list(args)
    if _is_namedtuple(instance) or _is_attrs(instance):
        return type(instance)(*args)
    if isinstance(instance, range):
        return list(args)
    return type(instance)(args)


def _truncate(value: Any, length: int) -> str:
    text = str(value)
    return text[:length] + (text[length:] and "...")


@tf_export("nest.pack_sequence_as")
def pack_sequence_as(structure: Any, flat_sequence: Any, expand_composites: bool = False) -> Any:
    """`flat_sequence` packed into the shape of `structure` (the inverse of `flatten`)."""
    if not is_nested(flat_sequence):
        raise TypeError(f"Attempted to pack value:\n  {_truncate(flat_sequence, 100)}\ninto a structure, but "
                        f"found incompatible type `{type(flat_sequence)}` instead.")
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(
                f"The target structure is of type `{type(structure)}`\n  {_truncate(structure, 100)}\nHowever "
                f"the input is a sequence ({type(flat_sequence)}) of length {len(flat_sequence)}.\n  "
                f"{_truncate(flat_sequence, 100)}\nnest cannot guarantee that it is safe to map one to the other.")
        return flat_sequence[0]
    flat = list(flat_sequence)
    position = 0

    def pack(substructure: Any) -> Any:
        nonlocal position
        packed = []
        for child in _children(substructure, _sorted_keys):
            if is_nested(child):
                packed.append(pack(child))
            elif position < len(flat):
                packed.append(flat[position])
                position += 1
            else:
                position += 1
        return _sequence_like(substructure, packed)

    result = pack(structure)
    if position != len(flat):
        raise ValueError(f"Could not pack sequence. Structure had {position} atoms, but flat_sequence had "
                         f"{len(flat)} items.  Structure: {structure}, flat_sequence: {flat_sequence}.")
    return result


def _describe(value: Any) -> str:
    return f"type={type(value).__name__} str={value}"


def _composite_spec(value: Any, expand_composites: bool) -> Any:
    """The TypeSpec of a composite tensor (SparseTensor, IndexedSlices, RaggedTensor) nest descends into with
    `expand_composites`, else None."""
    return composite_tensor_spec(value) if expand_composites else None


def _structure_mismatch(first: Any, second: Any, check_types: bool,
                        expand_composites: bool = False) -> tuple[type[Exception], str] | None:
    """(error class, TF's "More specifically" text) for the first place the structures differ, else None."""
    first_spec, second_spec = _composite_spec(first, expand_composites), _composite_spec(second, expand_composites)
    if first_spec is not None and second_spec is not None:
        if first_spec.most_specific_common_supertype([second_spec]) is None:  # TF's check of two specs
            return ValueError, (f"Incompatible CompositeTensor TypeSpecs: type={type(first_spec).__name__} "
                                f"str={first_spec!r} vs. type={type(second_spec).__name__} str={second_spec!r}")
        return None
    first_nested = first_spec is not None or is_nested(first)
    second_nested = second_spec is not None or is_nested(second)
    if first_nested != second_nested:
        nested, atom = (first, second) if first_nested else (second, first)
        return ValueError, (f'Substructure "{_describe(nested)}" is a sequence, while substructure '
                            f'"{_describe(atom)}" is not')
    if not first_nested:
        return None
    if check_types:
        if _is_namedtuple(first) and _is_namedtuple(second):
            same_type = type(first).__name__ == type(second).__name__ and first._fields == second._fields
        else:
            same_type = (type(first) is type(second) or (isinstance(first, list) and isinstance(second, list))
                         or (isinstance(first, Mapping) and isinstance(second, Mapping)))
        if not same_type:
            return TypeError, (f"The two namedtuples don't have the same sequence type. First structure "
                               f"{_describe(first)} has type {type(first).__name__}, while second structure "
                               f"{_describe(second)} has type {type(second).__name__}")
        if isinstance(first, dict) and isinstance(second, dict) and (
                len(first) != len(second) or any(key not in second for key in first)):
            return ValueError, (f"The two dictionaries don't have the same set of keys. First structure has keys "
                                f"{_describe(list(first))}, while second structure has keys "
                                f"{_describe(list(second))}")
    first_children, second_children = list(_children(first, sorted)), list(_children(second, sorted))
    if len(first_children) != len(second_children):
        return ValueError, (f"The two structures don't have the same number of elements. First structure: "
                            f"{_describe(first)}. Second structure: {_describe(second)}")
    for first_child, second_child in zip(first_children, second_children):
        mismatch = _structure_mismatch(first_child, second_child, check_types, expand_composites)
        if mismatch is not None:
            return mismatch
    return None


class _Dot:
    """The atom placeholder of `assert_same_structure`'s structure outlines."""

    def __repr__(self) -> str:
        return "."


@tf_export("nest.assert_same_structure")
def assert_same_structure(nest1: Any, nest2: Any, check_types: bool = True, expand_composites: bool = False) -> None:
    """Raises ValueError (or TypeError for a differing sequence type) unless both nest the same way."""
    _assert_same(nest1, nest2, check_types, outlines=True, expand_composites=expand_composites)


def assert_same_data_structure(nest1: Any, nest2: Any, check_types: bool = True) -> None:
    """tf.data's assert_same_structure (its util.nest, TF's AssertSameStructureForData): the same check and
    message, without the structures' outlines after it."""
    _assert_same(nest1, nest2, check_types, outlines=False)


def _assert_same(nest1: Any, nest2: Any, check_types: Any, outlines: bool, expand_composites: bool = False) -> None:
    mismatch = _structure_mismatch(nest1, nest2, bool(check_types), bool(expand_composites))
    if mismatch is None:
        return
    error_class, detail = mismatch
    message = (f"The two structures don't have the same nested structure.\n\nFirst structure: {_describe(nest1)}"
               f"\n\nSecond structure: {_describe(nest2)}\n\nMore specifically: {detail}")
    if outlines:
        outline1, outline2 = (map_structure(lambda _: _Dot(), nest) for nest in (nest1, nest2))
        message += f"\nEntire first structure:\n{outline1}\nEntire second structure:\n{outline2}"
    raise error_class(message)


@tf_export("nest.map_structure")
def map_structure(func: Callable, *structure: Any, **kwargs: Any) -> Any:
    """`func` applied to the atoms at the same place in every structure, packed like the first one."""
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError("Only valid keyword arguments are `check_types` and `expand_composites`, not: `"
                         + "`, `".join(kwargs) + "`")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    return pack_sequence_as(structure[0], [func(*atoms) for atoms in zip(*(flatten(s) for s in structure))])
