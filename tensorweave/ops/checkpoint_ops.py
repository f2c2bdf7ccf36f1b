"""Checkpoint remapping ops (TF's gen_checkpoint_ops): GenerateVocabRemapping maps the ids of a new vocabulary
file to those of an old one, and LoadAndRemapMatrix loads a matrix from a checkpoint with its rows (and columns)
moved by such maps, the cells no old row or column fills taken from given values. Warm-starting a
vocabulary-keyed variable (`tf.train.warm_start` with a `VocabInfo`) builds its initializer from the two.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.formats import bundle
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_helpers import with_rank
from tensorweave.platform import gfile

# -- GenerateVocabRemapping -----------------------------------------------------------------------------

GenerateVocabRemapping = Op("GenerateVocabRemapping", inputs=["new_vocab_file: string", "old_vocab_file: string"],
                            outputs=["remapping: int64", "num_present: int32"],
                            attrs=["new_vocab_offset: int >= 0", "num_new_vocab: int >= 0",
                                   "old_vocab_size: int >= -1 = -1"])


@GenerateVocabRemapping.shape
def _generate_vocab_remapping_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 0)
    with_rank(ctx.input_shape(1), 0)
    return [tensor_shape.TensorShape([ctx.attr("num_new_vocab")]), tensor_shape.TensorShape([])]


def _vocab_lines(ctx: OpKernelContext, filename: str, size: int = -1) -> list[bytes]:
    """A vocabulary file's tokens, one a line (its first `size` lines; -1: all), as TF's text-file tables read
    it."""
    with gfile.GFile(filename, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    if size >= 0:
        if len(lines) < size:
            raise invalid_argument(ctx, f"Invalid vocab_size in {filename}: expected {size} but got {len(lines)}")
        lines = lines[:size]
    return lines


@GenerateVocabRemapping.kernel("CPU")
def _generate_vocab_remapping(ctx: OpKernelContext, new_vocab_file: Any, old_vocab_file: Any,
                              new_vocab_offset: int, num_new_vocab: int, old_vocab_size: int) -> list:
    """For each new id in [offset, offset + num_new_vocab), the old id of its token (-1: not in the old
    vocabulary), and how many were found."""
    files = []
    for name, value in (("new_vocab_file", new_vocab_file), ("old_vocab_file", old_vocab_file)):
        if np.ndim(value):
            raise invalid_argument(ctx, f"{name} should be a single string, but got "
                                        f"{tensor_shape.shape_string(np.shape(value))}")
        filename = np.ravel(value)[0].decode()
        if not filename:
            raise invalid_argument(ctx, "new vocab filename cannot be empty.")
        files.append(filename)
    new_tokens = _vocab_lines(ctx, files[0])
    if new_vocab_offset + num_new_vocab > len(new_tokens):
        raise invalid_argument(ctx, "lookup table size must be larger than last new vocab entry's line")
    old_ids: dict[bytes, int] = {}
    for i, token in enumerate(_vocab_lines(ctx, files[1], old_vocab_size)):
        if old_ids.setdefault(token, i) != i:
            raise errors.FailedPreconditionError(
                ctx.node_def, None, f"HashTable has different value for same key. Key {token.decode(errors='replace')} "
                                    f"has {old_ids[token]} and trying to add value {i}")
    tokens = new_tokens[new_vocab_offset:new_vocab_offset + num_new_vocab]
    remapping = np.fromiter((old_ids.get(token, -1) for token in tokens), np.int64, len(tokens))
    return [remapping, np.int32(np.count_nonzero(remapping >= 0))]


# -- LoadAndRemapMatrix -----------------------------------------------------------------------------------

LoadAndRemapMatrix = Op("LoadAndRemapMatrix",
                        inputs=["ckpt_path: string", "old_tensor_name: string", "row_remapping: int64",
                                "col_remapping: int64", "initializing_values: float"],
                        outputs=["output_matrix: float"],
                        attrs=["num_rows: int >= 0", "num_cols: int >= 1", "max_rows_in_memory: int = -1"],
                        is_stateful=True)


@LoadAndRemapMatrix.shape
def _load_and_remap_matrix_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 0)
    with_rank(ctx.input_shape(1), 0)
    with_rank(ctx.input_shape(2), 1)
    with_rank(ctx.input_shape(3), 1)
    return [tensor_shape.TensorShape([ctx.attr("num_rows"), ctx.attr("num_cols")])]


def _present(ctx: OpKernelContext, remapping: np.ndarray) -> np.ndarray:
    """Which new ids a remapping fills; an old id mapped to two new ones is refused, as in TF."""
    present = remapping >= 0
    old = remapping[present]
    unique, first = np.unique(old, return_index=True)
    if unique.size != old.size:
        new_ids = np.flatnonzero(present)
        second = np.setdiff1d(np.arange(old.size), first)[0]
        first_of_it = new_ids[np.flatnonzero(old == old[second])[0]]
        raise errors.UnimplementedError(ctx.node_def, None, f"Old ID {old[second]} is mapped to both new ID "
                                                            f"{first_of_it} and {new_ids[second]}, which is not "
                                                            "supported.")
    return present


@LoadAndRemapMatrix.kernel("CPU", expensive=True)
def _load_and_remap_matrix(ctx: OpKernelContext, ckpt_path: Any, old_tensor_name: Any, row_remapping: Any,
                           col_remapping: Any, initializing_values: Any, num_rows: int, num_cols: int,
                           max_rows_in_memory: int) -> np.ndarray:
    """The checkpoint matrix's rows (and columns) at their new ids, the missing cells filled row by row from
    `initializing_values`, each used once."""
    if row_remapping.ndim != 1:
        raise invalid_argument(ctx, "The `row_remapping` tensor must be 1-D, got a tensor of shape "
                                    f"{tensor_shape.shape_string(row_remapping.shape)}")
    if row_remapping.size != num_rows:
        raise invalid_argument(ctx, f"Size of row_remapping is {row_remapping.size} instead of being equal to "
                                    f"num_rows={num_rows}")
    rows_present = _present(ctx, row_remapping)
    remap_cols = col_remapping.size > 0
    if remap_cols and col_remapping.size != num_cols:
        raise invalid_argument(ctx, f"Provided col_remapping, but its size is {col_remapping.size} instead of "
                                    f"being equal to num_cols={num_cols}")
    cols_present = _present(ctx, col_remapping) if remap_cols else np.ones(num_cols, bool)
    if np.size(ckpt_path) != 1:
        raise invalid_argument(ctx, "The `ckpt_path` tensor must have exactly one element, got tensor of shape "
                                    f"{tensor_shape.shape_string(np.shape(ckpt_path))}")
    name = np.ravel(old_tensor_name)[0].decode()
    with bundle.BundleReader(np.ravel(ckpt_path)[0].decode()) as reader:
        shape, dtype = reader.shape_and_dtype(name)
        if dtype != dtypes.float32.as_datatype_enum:
            raise invalid_argument(ctx, f"Tensor {name} has invalid type "
                                        f"{dtypes.type_string(dtypes.as_dtype(dtype))} instead of expected type float")
        if len(shape) != 2:
            raise invalid_argument(ctx, f"Tensor {name} has shape {tensor_shape.shape_string(shape)} of invalid rank "
                                        f"{len(shape)} instead of expected shape of rank 2.")
        if not remap_cols and num_cols != shape[1]:
            raise invalid_argument(ctx, f"Tensor {name} has shape {tensor_shape.shape_string(shape)}, where the size "
                                        f"of its 2nd dimension is {shape[1]} instead of being equal to "
                                        f"num_cols={num_cols}")
        old = reader.lookup(name) if rows_present.any() else np.zeros((0, shape[1]), np.float32)
    out = np.zeros((num_rows, num_cols), np.float32)
    old_cols = col_remapping[cols_present] if remap_cols else np.arange(num_cols)
    out[np.ix_(rows_present, cols_present)] = old[np.ix_(row_remapping[rows_present], old_cols)]
    missing = ~(rows_present[:, None] & cols_present[None, :])
    values = np.ravel(initializing_values)
    needed = int(np.count_nonzero(missing))
    if values.size < needed:
        raise invalid_argument(ctx, f"initializing_values contained {values.size} elements, but more missing values "
                                    "remain.")
    if values.size > needed:
        raise invalid_argument(ctx, f"initializing_values contained {values.size} elements, but only {needed} "
                                    "elements were used to fill in missing values.")
    out[missing] = values
    return out
