"""Higher-order functions over the first dimension of tensors, built as TF1 builds them: `tf.map_fn`, `tf.scan`,
`tf.foldl` and `tf.foldr` unstack their inputs into TensorArrays, run a `while_loop` that reads one element per
iteration and writes each result, and stack what was written. The function is called once, to build the loop
body, so the graph stays the same size whatever the number of elements.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from tensorweave.framework import dtypes, nest, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.framework.type_spec import SparseTensorSpec, TensorSpec
from tensorweave.ops import (
    constant_ops,
    control_flow_ops,
    manipulation_ops,
    shape_ops,
    sparse_misc_ops,
    variable_scope,
)
from tensorweave.ops.tensor_array_ops import TensorArray, build_ta_with_new_flow
from tensorweave.platform.tf_export import tf_export


@contextlib.contextmanager
def _caching_at_op_device() -> Iterator[None]:
    """Variables made by `fn` are read where the reading op runs, as TF sets while building these loops."""
    scope = variable_scope.get_variable_scope()
    was_none = scope.caching_device is None
    if was_none:
        scope.set_caching_device(lambda op: op.device)
    try:
        yield
    finally:
        if was_none:
            scope.set_caching_device(None)


def _leading_dim(elems_flat: list[Tensor]) -> tensor_shape.Dimension:
    """The elements' shared static length (ValueError when two disagree)."""
    n = tensor_shape.Dimension(tensor_shape.dimension_value(elems_flat[0].shape.with_rank_at_least(1)[0]))
    for elem in elems_flat[1:]:
        n.assert_is_compatible_with(
            tensor_shape.Dimension(tensor_shape.dimension_value(elem.shape.with_rank_at_least(1)[0])))
    return n


def _length(elem: Tensor) -> Any:
    """The number of elements: the static length, else the runtime one."""
    return tensor_shape.dimension_value(elem.shape[0]) or shape_ops.shape(elem)[0]


def _check_callable(fn: Any) -> None:
    if not callable(fn):
        raise TypeError(f"{fn.__name__} is not callable. Please provide a callable function.")


@tf_export("map_fn")
def map_fn(fn: Callable[[Any], Any], elems: Any, dtype: Any = None, parallel_iterations: int | None = None,
           back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True, name: str | None = None,
           fn_output_signature: Any = None) -> Any:
    """`fn` applied to each element of `elems` (a tensor or a nested structure of them, unstacked along their
    first dimension); the results stacked. `dtype` gives the structure and dtypes of `fn`'s result when they
    differ from `elems`'."""
    if fn_output_signature is None:
        fn_output_signature = dtype
    if not callable(fn):
        raise TypeError(f"The provided function {fn.__name__} is not callable.fn must be callable.")
    parallel_iterations = parallel_iterations or 10
    elems_flat = nest.flatten(elems)
    if not elems_flat:
        raise ValueError(f"elems must be a Tensor or (possibly nested) sequence of Tensors. Got {elems}, which does "
                         "not contain any Tensors.")
    with name_scope(name, "map", elems_flat), _caching_at_op_device():
        elems_flat = [convert_to_tensor(t, name="elem") for t in elems_flat]
        if elems_flat[0].shape.ndims is not None and elems_flat[0].shape.ndims < 1:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
        if fn_output_signature is None:
            result_dtypes = [e.dtype for e in elems_flat]
            result_structure = elems
        else:
            # a SparseTensorSpec's results go through the loop serialized (TF's batchable encoding)
            result_dtypes = [dtypes.string if isinstance(d, SparseTensorSpec) else
                             dtypes.as_dtype(d.dtype if isinstance(d, TensorSpec) else d)
                             for d in nest.flatten(fn_output_signature)]
            result_structure = fn_output_signature
        n_static = _leading_dim(elems_flat)
        n = n_static.value or shape_ops.shape(elems_flat[0])[0]
        elems_ta = [TensorArray(dtype=t.dtype, size=n, dynamic_size=False, infer_shape=True) for t in elems_flat]
        elems_ta = [ta.unstack(t) for ta, t in zip(elems_ta, elems_flat)]
        i = constant_ops.constant(0)
        results_ta = [TensorArray(dtype=d, size=n, dynamic_size=False, infer_shape=infer_shape)
                      for d in result_dtypes]

        def compute(i: Tensor, tas: list[TensorArray]) -> tuple[Tensor, list[TensorArray]]:
            value = fn(nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_ta]))
            nest.assert_same_structure(fn_output_signature or elems, value)
            tas = [ta.write(i, sparse_misc_ops.serialize_sparse(v) if isinstance(v, SparseTensor) else v)
                   for ta, v in zip(tas, nest.flatten(value))]
            return i + 1, tas

        _, results_ta = control_flow_ops.while_loop(
            lambda i, _: i < n, compute, (i, results_ta), parallel_iterations=parallel_iterations,
            back_prop=back_prop, swap_memory=swap_memory, maximum_iterations=n)
        results = [r.stack() for r in results_ta]
        for r in results:
            r.set_shape(tensor_shape.TensorShape([n_static]).concatenate(r.shape[1:]))
        results = [_sparse_batch(r, spec, n_static) if isinstance(spec, SparseTensorSpec) else r
                   for r, spec in zip(results, nest.flatten(result_structure))]
        return nest.pack_sequence_as(result_structure, results)


def _sparse_batch(serialized: Tensor, spec: SparseTensorSpec, batch_size: int | None) -> SparseTensor:
    """map_fn's serialized SparseTensor results as one SparseTensor, its dense shape what the batched spec
    knows of it (TF's SparseTensorSpec._from_compatible_tensor_list: a constant when fully known)."""
    shape = tensor_shape.TensorShape([batch_size]).concatenate(spec.shape)
    result = sparse_misc_ops.deserialize_many_sparse(serialized, spec.dtype, rank=shape.rank)
    dense_shape = result.dense_shape
    if shape.is_fully_defined():
        dense_shape = constant_ops.constant(shape.as_list(), dtype=dtypes.int64, name="shape")
    elif shape.rank is not None and any(d is not None for d in shape.as_list()):
        pieces = manipulation_ops.unstack(dense_shape, num=shape.rank)
        pieces = [piece if d is None else constant_ops.constant(d, dtypes.int64)
                  for piece, d in zip(pieces, shape.as_list())]
        dense_shape = manipulation_ops.stack(pieces)
    return SparseTensor(result.indices, result.values, dense_shape)


@tf_export("scan")
def scan(fn: Callable[[Any, Any], Any], elems: Any, initializer: Any = None, parallel_iterations: int = 10,
         back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True, reverse: bool = False,
         name: str | None = None) -> Any:
    """Every accumulator of `fn(accumulator, element)` over `elems` (last to first when `reverse`), stacked;
    the first element starts the accumulation when there is no `initializer`."""
    _check_callable(fn)
    input_nested = nest.is_nested(elems)
    output_nested = input_nested if initializer is None else nest.is_nested(initializer)
    output_structure = elems if initializer is None else initializer

    def pack(structure: Any, nested: bool, flat: list) -> Any:
        return nest.pack_sequence_as(structure, flat) if nested else flat[0]

    elems_flat = nest.flatten(elems) if input_nested else [elems]
    with name_scope(name, "scan", elems_flat), _caching_at_op_device():
        elems_flat = [convert_to_tensor(elem, name="elem") for elem in elems_flat]
        n = tensor_shape.dimension_value(elems_flat[0].shape[0])
        if n is None:
            n = shape_ops.shape(elems_flat[0])[0]
        elems_ta = [TensorArray(dtype=elem.dtype, size=n, dynamic_size=False, element_shape=elem.shape[1:],
                                infer_shape=True) for elem in elems_flat]
        elems_ta = [ta.unstack(elem) for ta, elem in zip(elems_ta, elems_flat)]
        if initializer is None:
            a_flat = [elem.read(n - 1 if reverse else 0) for elem in elems_ta]
            i = 1
        else:
            initializer_flat = nest.flatten(initializer) if output_nested else [initializer]
            a_flat = [convert_to_tensor(init) for init in initializer_flat]
            i = 0
        accs_ta = [TensorArray(dtype=init.dtype, size=n, element_shape=init.shape if infer_shape else None,
                               dynamic_size=False, infer_shape=infer_shape) for init in a_flat]
        if initializer is None:
            accs_ta = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs_ta, a_flat)]

        def compute(i: Tensor, a_flat: list[Tensor], tas: list[TensorArray]) -> tuple[Tensor, list, list]:
            packed_elems = pack(elems, input_nested, [ta.read(i) for ta in elems_ta])
            a_out = fn(pack(output_structure, output_nested, a_flat), packed_elems)
            nest.assert_same_structure(output_structure, a_out)
            flat_a_out = nest.flatten(a_out) if output_nested else [a_out]
            tas = [ta.write(i, value) for ta, value in zip(tas, flat_a_out)]
            return (i - 1 if reverse else i + 1), flat_a_out, tas

        if reverse:
            initial_i, condition = n - 1 - i, (lambda i, _1, _2: i >= 0)
        else:
            initial_i, condition = i, (lambda i, _1, _2: i < n)
        _, _, results_ta = control_flow_ops.while_loop(
            condition, compute, (initial_i, a_flat, accs_ta), parallel_iterations=parallel_iterations,
            back_prop=back_prop, swap_memory=swap_memory, maximum_iterations=n)
        results = [r.stack() for r in results_ta]
        n_static = _leading_dim(elems_flat)
        for r in results:
            r.set_shape(tensor_shape.TensorShape([n_static]).concatenate(r.shape[1:]))
        return pack(output_structure, output_nested, results)


def _fold(fn: Callable[[Any, Any], Any], elems: Any, initializer: Any, parallel_iterations: int, back_prop: bool,
          swap_memory: bool, name: str | None, right: bool) -> Any:
    """foldl and foldr: one accumulator through a while_loop over the elements, from the left or the right."""
    _check_callable(fn)
    with name_scope(name, "foldr" if right else "foldl", [elems]), _caching_at_op_device():
        elems_flat = [convert_to_tensor(elem, name="elem") for elem in nest.flatten(elems)]
        n = _length(elems_flat[0])
        elems_ta = nest.map_structure(
            lambda elem: TensorArray(dtype=elem.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(elem),
            nest.pack_sequence_as(elems, elems_flat))
        if initializer is not None:
            a, i = initializer, n if right else constant_ops.constant(0)
        elif right:
            i = n - 1
            a = nest.map_structure(lambda ta: ta.read(i), elems_ta)
        else:
            a = nest.map_structure(lambda ta: ta.read(0), elems_ta)
            i = constant_ops.constant(1)

        def compute(i: Tensor, a: Any) -> list:
            if right:
                i -= 1
            elem = nest.map_structure(lambda ta: ta.read(i), elems_ta)
            return [i if right else i + 1, fn(a, elem)]

        _, r_a = control_flow_ops.while_loop(
            (lambda i, a: i > 0) if right else (lambda i, a: i < n), compute, [i, a],
            parallel_iterations=parallel_iterations, back_prop=back_prop, swap_memory=swap_memory,
            maximum_iterations=n)
        return r_a


@tf_export("foldl")
def foldl(fn: Callable[[Any, Any], Any], elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: str | None = None) -> Any:
    """`fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1])`; `elems[0]` starts it when there is
    no initializer."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, right=False)


@tf_export("foldr")
def foldr(fn: Callable[[Any, Any], Any], elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: str | None = None) -> Any:
    """`fn(...fn(fn(initializer, elems[n-1]), elems[n-2])..., elems[0])`; `elems[n-1]` starts it when there
    is no initializer."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, right=True)


@tf_export("vectorized_map")
def vectorized_map(fn: Callable[[Any], Any], elems: Any, fallback_to_while_loop: bool = True,
                   warn: bool = True) -> Any:
    """`fn` applied to each slice of `elems` along its first dimension, the results stacked, in `fn`'s output
    structure. TF vectorizes `fn` where it can and otherwise falls back to a while loop; this always runs that
    loop, so any `fn` works and no output dtypes need giving: `fn` is called once, in the loop body, and the
    TensorArrays that gather its results are made outside the loop once its outputs are known (their writes
    are ordered through one flow, the loop variable)."""
    elems_flat = [convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
    with name_scope(None, "vectorized_map", elems_flat):
        n_static = _leading_dim(elems_flat)
        n = n_static.value if n_static.value is not None else shape_ops.shape(elems_flat[0])[0]
        graph = get_default_graph()
        built: dict[str, Any] = {}

        def body(i: Tensor, flow: Tensor) -> list[Tensor]:
            value = fn(nest.pack_sequence_as(elems, [e[i] for e in elems_flat]))
            outputs = [convert_to_tensor(v) for v in nest.flatten(value)]
            loop = graph._get_control_flow_context()
            graph._set_control_flow_context(loop.outer_context)
            try:
                with graph.control_dependencies(None):
                    arrays = [TensorArray(dtype=v.dtype, size=n, element_shape=v.shape) for v in outputs]
            finally:
                graph._set_control_flow_context(loop)
            built.update(structure=value, arrays=arrays)
            for array, v in zip(arrays, outputs):
                flow = build_ta_with_new_flow(array, flow).write(i, v).flow
            return [i + 1, flow]

        _, flow = control_flow_ops.while_loop(lambda i, _: i < n, body, [constant_ops.constant(0),
                                                                         constant_ops.constant(0.0)])
        results = [build_ta_with_new_flow(array, flow).stack() for array in built["arrays"]]
        for r in results:
            r.set_shape(tensor_shape.TensorShape([n_static]).concatenate(r.shape[1:]))
        return nest.pack_sequence_as(built["structure"], results)
