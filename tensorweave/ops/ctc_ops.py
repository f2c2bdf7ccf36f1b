"""Connectionist temporal classification: the CTC loss (`tf.nn.ctc_loss`, `ctc_loss_v2`) with its gradient,
the greedy and beam-search decoders, and the label helpers `ctc_unique_labels` and `collapse_repeated`.

The CTCLoss kernel runs Graves' forward-backward recursions in log space over the label sequence with blanks
interleaved (l', length 2L + 1, the blank being the last class), one time step at a time for the whole batch
and every position of l' together; sequences end at their own `sequence_length` (their backward variables
start there). It yields the loss -log p(labels | inputs) and, as TF's op does, its gradient with respect to
the logits: softmax - the posterior occupancy of each class. The arithmetic runs in float64 (TF's in the
input type), so float32 losses agree with TF's to a few ulps.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.ops import (
    cast_ops,
    elementwise_ops,
    fill_ops,
    functional_ops,
    indexing_ops,
    manipulation_ops,
    reduction_ops,
    scatter_ops,
    sequence_ops,
    set_ops,
    shape_ops,
)
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.legacy_ops import PreventGradient
from tensorweave.ops.shape_helpers import with_rank
from tensorweave.platform.tf_export import tf_export

_FLOATS = "T: {float, double} = DT_FLOAT"


def _merge_dims(a: tensor_shape.Dimension, b: tensor_shape.Dimension) -> tensor_shape.Dimension:
    if a.value is not None and b.value is not None and a.value != b.value:
        raise ValueError(f"Dimensions must be equal, but are {a.value} and {b.value}")
    return a if a.value is not None else b


CTCLoss = Op("CTCLoss", inputs=["inputs: T", "labels_indices: int64", "labels_values: int32", "sequence_length: int32"],
             outputs=["loss: T", "gradient: T"],
             attrs=["preprocess_collapse_repeated: bool = false", "ctc_merge_repeated: bool = true",
                    "ignore_longer_outputs_than_inputs: bool = false", _FLOATS])


@CTCLoss.shape
def _ctc_loss_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    inputs = with_rank(ctx.input_shape(0), 3)
    labels_indices = with_rank(ctx.input_shape(1), 2)
    labels_values = with_rank(ctx.input_shape(2), 1)
    sequence_length = with_rank(ctx.input_shape(3), 1)
    _merge_dims(labels_indices.dims[0], labels_values.dims[0])
    batch = _merge_dims(inputs.dims[1], sequence_length.dims[0])
    return [tensor_shape.TensorShape([batch]), tensor_shape.TensorShape([inputs.dims[0], batch, inputs.dims[2]])]


def _join(values: Any) -> str:
    return ",".join(str(int(v)) for v in values)


def _label_rows(ctx: OpKernelContext, labels_indices: np.ndarray, labels_values: np.ndarray,
                batch_size: int) -> list[np.ndarray]:
    """Each batch row's labels, in index order, after TF's checks of the SparseTensor."""
    max_label_len = int(labels_indices[:, 1].max()) + 1 if labels_indices.size else 0
    bounds = (labels_indices < 0) | (labels_indices >= np.array([batch_size, max_label_len]))
    if bounds.any():
        i = int(np.flatnonzero(bounds.any(axis=1))[0])
        raise invalid_argument(ctx, f"label SparseTensor is not valid: indices[{i}] = [{_join(labels_indices[i])}] "
                                    f"is out of bounds: need 0 <= index < [{batch_size},{max_label_len}]")
    keys = labels_indices[:, 0] * max(max_label_len, 1) + labels_indices[:, 1]
    steps = np.diff(keys)
    if (steps <= 0).any():
        i = int(np.flatnonzero(steps <= 0)[0]) + 1
        problem = "is out of order" if steps[i - 1] < 0 else "is repeated"
        raise invalid_argument(ctx, f"label SparseTensor is not valid: indices[{i}] = [{_join(labels_indices[i])}] "
                                    f"{problem}. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` "
                                    f"to create a correctly ordered copy.\n\n")
    return np.split(labels_values, np.cumsum(np.bincount(labels_indices[:, 0], minlength=batch_size))[:-1])


def _target(ctx: OpKernelContext, label: np.ndarray, b: int, num_classes: int, collapse: bool) -> np.ndarray:
    """TF's l for one row: repeats dropped with `preprocess_collapse_repeated`, and cut at the first label
    >= num_classes - 1 (after which only such labels may follow)."""
    if label.size == 0:
        raise invalid_argument(ctx, f"Labels length is zero in batch {b}")
    kept = label[np.concatenate([[True], label[1:] != label[:-1]])] if collapse else label
    null = kept >= num_classes - 1
    if null.any():
        first = int(np.argmax(null))
        if not null[first:].all():
            seen = kept[:first]
            raise invalid_argument(ctx, f"Saw a non-null label (index >= num_classes - 1) following a null label, "
                                        f"batch: {b} num_classes: {num_classes} labels: {_join(label)} labels seen "
                                        f"so far: {_join(seen)}")
        kept = kept[:first]
    if (kept < 0).any():
        raise invalid_argument(ctx, f"All labels must be nonnegative integers, batch: {b} labels: {_join(kept)}")
    return kept


def _logsumexp3(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return np.logaddexp(np.logaddexp(a, b), c)


def _shift(values: np.ndarray, by: int) -> np.ndarray:
    """values[..., u - by] at u (by > 0: from the left; by < 0: from the right), -inf where there is none."""
    out = np.full_like(values, -np.inf)
    if by > 0:
        out[..., by:] = values[..., :-by]
    else:
        out[..., :by] = values[..., -by:]
    return out


def _ctc_forward_backward(log_y: np.ndarray, l_prime: np.ndarray, u_lengths: np.ndarray, seq_len: np.ndarray,
                          blank: int, merge_repeated: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log alpha, log beta ([T, B, U]; beta without the step's own emission, TF's convention) and log p(z|x)
    of each row, over the padded l' ([B, U], blank beyond a row's own length)."""
    max_time, batch = log_y.shape[:2]
    size = l_prime.shape[1]
    positions = np.arange(size)
    valid = positions < u_lengths[:, None]
    emit = np.take_along_axis(log_y, np.broadcast_to(l_prime, (max_time, batch, size)), axis=2)
    emit = np.where(valid, emit, -np.inf)
    is_blank = l_prime == blank
    stay = merge_repeated | is_blank
    skip_to = np.zeros_like(valid)  # u may be reached from u - 2
    skip_to[:, 2:] = ~is_blank[:, 2:] & ~(merge_repeated & (l_prime[:, 2:] == l_prime[:, :-2]))
    log_alpha = np.full((max_time, batch, size), -np.inf)
    log_alpha[0, :, :2] = emit[0, :, :2]
    for t in range(1, max_time):
        previous = log_alpha[t - 1]
        log_alpha[t] = emit[t] + _logsumexp3(np.where(stay, previous, -np.inf), _shift(previous, 1),
                                             np.where(skip_to, _shift(previous, 2), -np.inf))
    log_beta = np.full((max_time, batch, size), -np.inf)
    last = seq_len - 1
    end = valid & (positions >= u_lengths[:, None] - 2)
    skip_from = _shift(skip_to.astype(np.float64), -2) > 0  # u may go on to u + 2
    for t in range(max_time - 1, -1, -1):
        if t + 1 < max_time:
            after = log_beta[t + 1] + emit[t + 1]
            inner = _logsumexp3(np.where(stay, after, -np.inf), _shift(after, -1),
                                np.where(skip_from, _shift(after, -2), -np.inf))
        else:
            inner = np.full((batch, size), -np.inf)
        log_beta[t] = np.where((t == last)[:, None], np.where(end, 0.0, -np.inf),
                               np.where((t < last)[:, None], inner, -np.inf))
    with np.errstate(invalid="ignore"):
        log_p = np.logaddexp.reduce(log_alpha[0] + log_beta[0], axis=1)
    return log_alpha, log_beta, log_p


@CTCLoss.kernel("CPU", expensive=True)
def _ctc_loss(ctx: OpKernelContext, inputs: Any, labels_indices: Any, labels_values: Any, sequence_length: Any,
              preprocess_collapse_repeated: bool, ctc_merge_repeated: bool,
              ignore_longer_outputs_than_inputs: bool) -> tuple[np.ndarray, np.ndarray]:
    for ok, message in ((inputs.ndim == 3, "inputs is not a 3-Tensor"),
                        (sequence_length.ndim == 1, "sequence_length is not a vector"),
                        (labels_indices.ndim == 2, "labels_indices is not a matrix"),
                        (labels_values.ndim == 1, "labels_values is not a vector")):
        if not ok:
            raise invalid_argument(ctx, message)
    max_time, batch_size, num_classes = inputs.shape
    if batch_size != sequence_length.shape[0]:
        raise invalid_argument(ctx, f"len(sequence_length) != batch_size.  len(sequence_length):  "
                                    f"{sequence_length.shape[0]} batch_size: {batch_size}")
    if labels_indices.shape[0] != labels_values.shape[0]:
        raise invalid_argument(ctx, f"labels_indices and labels_values must contain the same number of rows, but "
                                    f"saw shapes: [{','.join(map(str, labels_indices.shape))}] vs. "
                                    f"[{labels_values.shape[0]}]")
    if batch_size == 0:
        raise invalid_argument(ctx, "batch_size must not be 0")
    rows = _label_rows(ctx, labels_indices, labels_values, batch_size)
    over = np.flatnonzero(sequence_length > max_time)
    if over.size:
        raise invalid_argument(ctx, f"sequence_length({over[0]}) <= {max_time}")
    negative = np.flatnonzero(sequence_length < 0)
    if negative.size:
        raise invalid_argument(ctx, f"seq_len({negative[0]}) < 0")
    targets = [_target(ctx, row, b, num_classes, preprocess_collapse_repeated) for b, row in enumerate(rows)]
    raw_lengths = np.array([row.size for row in rows])
    too_long = raw_lengths > sequence_length
    if not ignore_longer_outputs_than_inputs and too_long.any():
        b = int(np.argmax(too_long))
        raise invalid_argument(ctx, f"Not enough time for target transition sequence (required: {raw_lengths[b]}, "
                                    f"available: {sequence_length[b]}){b}You can turn this error into a warning by "
                                    f"using the flag ignore_longer_outputs_than_inputs")
    blank = num_classes - 1
    lengths = np.array([target.size for target in targets])
    l_prime = np.full((batch_size, 2 * int(lengths.max()) + 1), blank, dtype=np.int64)
    row_of = np.repeat(np.arange(batch_size), lengths)
    l_prime[row_of, 2 * (np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)) + 1] = \
        np.concatenate(targets)
    logits = inputs.astype(np.float64)
    shifted = logits - logits.max(axis=2, keepdims=True)
    y = np.exp(shifted)
    y /= y.sum(axis=2, keepdims=True)
    with np.errstate(divide="ignore"):
        log_y = np.log(y)
    log_alpha, log_beta, log_p = _ctc_forward_backward(log_y, l_prime, 2 * lengths + 1, sequence_length,
                                                       blank, ctc_merge_repeated)
    with np.errstate(invalid="ignore", over="ignore"):
        occupancy = np.exp(log_alpha + log_beta - log_p[None, :, None])
    occupancy = np.nan_to_num(occupancy, nan=0.0)
    one_hot = np.zeros(l_prime.shape + (num_classes,))
    np.put_along_axis(one_hot, l_prime[..., None], 1.0, axis=2)
    gradient = y - np.einsum("tbu,buc->tbc", occupancy, one_hot)
    gradient = np.where(np.isneginf(log_p)[None, :, None], y, gradient)
    skipped = (sequence_length == 0) | (ignore_longer_outputs_than_inputs & too_long)
    in_sequence = (np.arange(max_time)[:, None] < sequence_length[None, :]) & ~skipped[None, :]
    gradient = np.where(in_sequence[..., None], gradient, 0.0)
    loss = np.where(skipped, 0.0, -log_p)
    return loss.astype(inputs.dtype), gradient.astype(inputs.dtype)


@CTCLoss.gradient
def _ctc_loss_grad(op: Any, grad_loss: Tensor, _: Tensor) -> list:
    """The op's own gradient output, scaled by each row's incoming gradient; TF blocks differentiating
    that output, so a second derivative of ctc_loss raises its LookupError."""
    grad = PreventGradient(op.outputs[1], message="Currently there is no way to take the second  derivative of "
                           "ctc_loss due to the fused implementation's interaction  with tf.gradients()")
    return [shape_ops.expand_dims(grad_loss, -1) * grad, None, None, None]


CTCGreedyDecoder = Op("CTCGreedyDecoder", inputs=["inputs: T", "sequence_length: int32"],
                      outputs=["decoded_indices: int64", "decoded_values: int64", "decoded_shape: int64",
                               "log_probability: T"],
                      attrs=["merge_repeated: bool = false", "blank_index: int = -1", _FLOATS])


def _decoder_shapes(ctx: InferenceContext, top_paths: int) -> list[tensor_shape.TensorShape]:
    inputs = with_rank(ctx.input_shape(0), 3)
    sequence_length = with_rank(ctx.input_shape(1), 1)
    batch = _merge_dims(inputs.dims[1], sequence_length.dims[0])
    return ([tensor_shape.TensorShape([None, 2])] * top_paths + [tensor_shape.TensorShape([None])] * top_paths
            + [tensor_shape.TensorShape([2])] * top_paths + [tensor_shape.TensorShape([batch, top_paths])])


@CTCGreedyDecoder.shape
def _ctc_greedy_decoder_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return _decoder_shapes(ctx, 1)


def _check_decoder_inputs(ctx: OpKernelContext, inputs: np.ndarray, sequence_length: np.ndarray) -> None:
    if inputs.ndim != 3:
        raise invalid_argument(ctx, "inputs is not a 3-Tensor")
    if inputs.size == 0:
        raise invalid_argument(ctx, "inputs must not be empty")
    if sequence_length.ndim != 1:
        raise invalid_argument(ctx, "sequence_length is not a vector")
    max_time, batch_size = inputs.shape[:2]
    if batch_size != sequence_length.shape[0]:
        raise errors.FailedPreconditionError(ctx.node_def, None, f"len(sequence_length) != batch_size.  "
                                             f"len(sequence_length):  {sequence_length.shape[0]} batch_size: "
                                             f"{batch_size}")
    over = np.flatnonzero(sequence_length > max_time)
    if over.size:
        raise errors.FailedPreconditionError(ctx.node_def, None, f"sequence_length({over[0]}) <= {max_time}")


def _sparse_paths(keep: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kept [B, T] entries of `values` as TF's decoded SparseTensor parts: (batch, position) indices,
    values and the dense shape [batch, longest]."""
    rows, _ = np.nonzero(keep)
    counts = keep.sum(axis=1)
    positions = np.arange(rows.size) - np.repeat(np.cumsum(counts) - counts, counts)
    indices = np.stack([rows, positions], axis=1).astype(np.int64).reshape(-1, 2)
    shape = np.array([keep.shape[0], counts.max() if counts.size else 0], dtype=np.int64)
    return indices, values[keep].astype(np.int64), shape


@CTCGreedyDecoder.kernel("CPU")
def _ctc_greedy_decoder(ctx: OpKernelContext, inputs: Any, sequence_length: Any, merge_repeated: bool,
                        blank_index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The most likely class at each step, repeats merged and blanks dropped; the log probability is minus
    the sum of the chosen logits (TF's: the inputs are taken as they are, not normalized)."""
    _check_decoder_inputs(ctx, inputs, sequence_length)
    max_time, _, num_classes = inputs.shape
    blank = blank_index + num_classes if blank_index < 0 else blank_index
    if not 0 <= blank < num_classes:
        raise invalid_argument(ctx, f"blank_index expected to be between {-num_classes} and {num_classes - 1} but "
                                    f"was {blank_index}")
    best = inputs.argmax(axis=2).T  # [B, T]
    in_sequence = np.arange(max_time)[None, :] < sequence_length[:, None]
    log_probability = -np.where(in_sequence, inputs.max(axis=2).T, 0).sum(axis=1, keepdims=True)
    keep = in_sequence & (best != blank)
    if merge_repeated:
        keep[:, 1:] &= best[:, 1:] != best[:, :-1]
    return (*_sparse_paths(keep, best), log_probability.astype(inputs.dtype))


CTCBeamSearchDecoder = Op("CTCBeamSearchDecoder", inputs=["inputs: T", "sequence_length: int32"],
                          outputs=["decoded_indices: top_paths * int64", "decoded_values: top_paths * int64",
                                   "decoded_shape: top_paths * int64", "log_probability: T"],
                          attrs=["beam_width: int >= 1", "top_paths: int >= 1", "merge_repeated: bool = true",
                                 _FLOATS])


@CTCBeamSearchDecoder.shape
def _ctc_beam_search_decoder_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return _decoder_shapes(ctx, ctx.attr("top_paths"))


class _PrefixTree:
    """The label prefixes the beams have grown: node i extends node parent[i] by label[i]; node 0 is the
    empty prefix. A prefix has one node however often it leaves and re-enters the beams (TF's tree of beam
    entries), found by its key parent * num_classes + label."""

    def __init__(self, num_classes: int) -> None:
        self.num_classes = num_classes
        self.parent = np.array([-1])
        self.label = np.array([-1])
        self._keys = np.empty(0, dtype=np.int64)  # sorted keys of the nodes past the root
        self._key_nodes = np.empty(0, dtype=np.int64)

    def children(self, parents: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """The nodes of these (parent, label) prefixes, made where new."""
        keys = parents * self.num_classes + labels
        place = np.searchsorted(self._keys, keys)
        found = place < self._keys.size
        found[found] = self._keys[place[found]] == keys[found]
        nodes = np.empty(keys.size, dtype=np.int64)
        nodes[found] = self._key_nodes[place[found]]
        fresh_keys, first = np.unique(keys[~found], return_inverse=True)
        fresh_nodes = np.arange(self.parent.size, self.parent.size + fresh_keys.size)
        nodes[~found] = fresh_nodes[first]
        self.parent = np.concatenate([self.parent, fresh_keys // self.num_classes])
        self.label = np.concatenate([self.label, fresh_keys % self.num_classes])
        order = np.argsort(np.concatenate([self._keys, fresh_keys]), kind="stable")
        self._keys = np.concatenate([self._keys, fresh_keys])[order]
        self._key_nodes = np.concatenate([self._key_nodes, fresh_nodes])[order]
        return nodes

    def sequences(self, nodes: np.ndarray, merge_repeated: bool) -> tuple[np.ndarray, np.ndarray]:
        """Each node's labels from the root, as a [n, depth] matrix right-aligned (-1 before the start) and
        a mask of the labels TF's LabelSeq keeps (with `merge_repeated`, a label equal to the one after it
        in the prefix goes)."""
        columns = []
        current = nodes
        while (current > 0).any():
            columns.append(np.where(current > 0, self.label[np.maximum(current, 0)], -1))
            current = np.where(current > 0, self.parent[np.maximum(current, 0)], 0)
        labels = np.stack(columns[::-1], axis=1) if columns else np.zeros((nodes.size, 0), dtype=np.int64)
        keep = labels >= 0
        if merge_repeated:
            keep[:, :-1] &= labels[:, :-1] != labels[:, 1:]
        return labels, keep


def _beam_step_first(nodes: np.ndarray, valid: np.ndarray, parent_slot: np.ndarray, old: np.ndarray,
                     logits: np.ndarray, tree: _PrefixTree, blank: int) -> np.ndarray:
    """The first pass of a step, for every beam at once: a beam's blank probability is its old total times
    P(blank); its label probability takes in its parent's (when the parent is a beam: its blank one if
    both end in the same label, else its total) and is multiplied by P(its label). [3, B, W] (total, blank,
    label)."""
    rows = np.arange(nodes.shape[0])[:, None]
    labels = tree.label[nodes]
    j = np.maximum(parent_slot, 0)
    parent_active = (parent_slot >= 0) & (old[0][rows, j] > -np.inf)
    from_parent = np.where(labels == labels[rows, j], old[1][rows, j], old[0][rows, j])
    label = np.where(parent_active, np.logaddexp(old[2], from_parent), old[2])
    label = np.where(nodes > 0, label + logits[rows, np.maximum(labels, 0)], old[2])
    blank_p = old[0] + logits[:, blank:blank + 1]
    return np.where(valid, np.stack([np.logaddexp(blank_p, label), blank_p, label]), -np.inf)


class _Offers:
    """What a step offers TF's leaves (a top-`width` of entries), for all rows at once, in TF's order: each
    beam's new total (sequence number = its slot, the beams in falling order of their old totals), then the
    children that proposing beams make, beam by beam and label by label (W + slot * K + label, K = classes -
    1). A child that is itself a beam is no offer: it is in the leaves, or was pushed out of them, and then
    its parent's offer is always turned down (its fresh value is at most its new total, which was the bottom
    then)."""

    def __init__(self, old: np.ndarray, new: np.ndarray, valid: np.ndarray, parent_slot: np.ndarray,
                 labels: np.ndarray, logits: np.ndarray, width: int) -> None:
        batch, slots = valid.shape
        classes = logits.shape[1] - 1
        self.width, self.valid, self.old_total, self.new_total = width, valid, old[0], new[0]
        self.slot = np.arange(slots)
        # [B, W, K]: a child's value is P(label) times its parent's blank probability when the label repeats
        # the parent's last one, else its total.
        previous = np.where(np.arange(classes)[None, None, :] == labels[:, :, None], old[1][:, :, None],
                            old[0][:, :, None])
        self.child_value = logits[:, None, :classes] + previous
        is_beam = np.zeros((batch, slots + 1, classes + 1), dtype=bool)  # slot -1 and label -1 land in spares
        b_i, j_i = np.nonzero(parent_slot >= 0)
        is_beam[b_i, parent_slot[b_i, j_i], labels[b_i, j_i]] = True
        self.offered = ~is_beam[:, :slots, :classes] & (self.child_value > -np.inf) & valid[:, :, None]

    def proposing(self, blocked: np.ndarray) -> np.ndarray:
        """The beams that propose children: one does while fewer than `width` offers before it reach its old
        total (the leaves are not full, or it beats their bottom). Offers only grow and old totals only fall
        along the slots, so the proposers are the unblocked beams before the first slot that fails, found by
        bisection for every row at once."""
        rows = np.arange(self.valid.shape[0])
        can = self.valid & (self.old_total > -np.inf) & ~blocked
        children = self.offered & can[:, :, None]
        low, high = np.zeros(rows.size, dtype=np.int64), np.full(rows.size, self.slot.size)
        while (searching := low < high).any():
            middle = (low + high) // 2
            bar = self.old_total[rows, np.minimum(middle, self.slot.size - 1)]
            count = (self.valid & (self.new_total >= bar[:, None])).sum(axis=1)
            count += (children & (self.slot[None, :, None] < middle[:, None, None])
                      & (self.child_value >= bar[:, None, None])).sum(axis=(1, 2))
            fails = count >= self.width
            high = np.where(searching & fails, middle, high)
            low = np.where(searching & ~fails, middle + 1, low)
        return can & (self.slot[None, :] < low[:, None])

    def blocked(self, proposing: np.ndarray, parent_slot: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """The beams whose parent, proposing before them, finds them pushed out of the leaves: TF then turns
        the parent's offer down and resets the beam's old probabilities, so that it proposes nothing."""
        rows = np.arange(self.valid.shape[0])[:, None]
        blocked = np.zeros_like(self.valid)
        r, j = np.nonzero(self.valid & (parent_slot >= 0) & (parent_slot < self.slot[None, :])
                          & proposing[rows, np.maximum(parent_slot, 0)])
        if not r.size:
            return blocked
        i, label, p = parent_slot[r, j], labels[r, j], self.new_total[r, j]
        new_total = self.new_total[r]
        above = (self.valid[r] & ((new_total > p[:, None]) | ((new_total == p[:, None])
                                                              & (self.slot[None, :] < j[:, None])))).sum(axis=1)
        earlier = ((self.slot[None, :, None] < i[:, None, None])
                   | ((self.slot[None, :, None] == i[:, None, None])
                      & (np.arange(self.child_value.shape[2])[None, None, :] < label[:, None, None])))
        above += (self.offered[r] & proposing[r][:, :, None] & earlier
                  & (self.child_value[r] > p[:, None, None])).sum(axis=(1, 2))
        blocked[r, j] = above >= self.width
        return blocked

    def leaves(self, proposing: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The leaves after the step: the `width` best offers (falling value, then offer order), as [B, W]
        offer numbers in falling value, their values and which are filled."""
        batch, slots = self.valid.shape
        offers = np.concatenate([self.valid, (self.offered & proposing[:, :, None]).reshape(batch, -1)], axis=1)
        values = np.where(offers, np.concatenate([self.new_total, self.child_value.reshape(batch, -1)], axis=1),
                          -np.inf)
        take = offers
        if values.shape[1] > self.width:
            bound = -np.partition(-values, self.width - 1, axis=1)[:, self.width - 1:self.width]
            above = values > bound
            tied = (values == bound) & offers
            take = above | (tied & (np.cumsum(tied, axis=1) <= self.width - above.sum(axis=1, keepdims=True)))
        r, code = np.nonzero(take)
        counts = take.sum(axis=1)
        place = np.arange(r.size) - np.repeat(np.cumsum(counts) - counts, counts)
        chosen = np.zeros((batch, slots), dtype=np.int64)
        filled = np.zeros((batch, slots), dtype=bool)
        chosen[r, place], filled[r, place] = code, True
        chosen_values = np.where(filled, values[np.arange(batch)[:, None], chosen], -np.inf)
        order = np.argsort(np.where(filled, -chosen_values, np.inf), axis=1, kind="stable")
        return (np.take_along_axis(chosen, order, axis=1), np.take_along_axis(chosen_values, order, axis=1),
                np.take_along_axis(filled, order, axis=1))


def _beam_search(inputs: np.ndarray, sequence_length: np.ndarray,
                 beam_width: int) -> tuple[_PrefixTree, np.ndarray, np.ndarray, np.ndarray]:
    """TF's CTC prefix beam search (CTCBeamSearchDecoder with its default scorer), for all rows and beams at
    once.

    At each step every beam's probabilities move on (`_beam_step_first`); then, in TF, beam by beam in
    falling order of their old totals, each proposes every non-blank class as a child prefix into a
    top-`beam_width` of leaves (`_Offers`). Which beams propose follows from counting the offers before each;
    a beam pushed out before its parent proposes it loses its own proposals, which may let later beams
    propose: the blocked beams are settled in slot order, repeating while a row's set changes (each round
    fixes at least its first changed beam; rarely more than one). The inputs are log-softmax normalized at
    each step. Returns the tree, each row's beam nodes and totals, and which beam slots are filled."""
    max_time, batch, num_classes = inputs.shape
    blank, width = num_classes - 1, beam_width
    classes = num_classes - 1
    rows = np.arange(batch)[:, None]
    tree = _PrefixTree(num_classes)
    nodes = np.zeros((batch, width), dtype=np.int64)
    valid = np.zeros((batch, width), dtype=bool)
    valid[:, 0] = True
    probs = np.full((3, batch, width), -np.inf)  # newp: total, blank, label
    probs[:2, :, 0] = 0.0
    for t in range(max_time):
        stepping = t < sequence_length
        logits = inputs[t].astype(np.float64)
        logits = logits - logits.max(axis=1, keepdims=True)
        logits -= np.log(np.exp(logits).sum(axis=1, keepdims=True))
        old = np.where(valid, probs, -np.inf)
        labels = tree.label[nodes]
        is_parent = (nodes[:, None, :] == tree.parent[nodes][:, :, None]) & valid[:, None, :] & valid[:, :, None]
        parent_slot = np.where(is_parent.any(axis=2), is_parent.argmax(axis=2), -1)  # [B, W]: slot or -1
        new = _beam_step_first(nodes, valid, parent_slot, old, logits, tree, blank)
        offers = _Offers(old, new, valid & stepping[:, None], parent_slot, labels, logits, width)
        blocked = np.zeros_like(valid)
        while True:
            proposing = offers.proposing(blocked)
            settled = offers.blocked(proposing, parent_slot, labels)
            changed = settled != blocked
            if not changed.any():
                break
            blocked = settled
        code, totals, filled = offers.leaves(proposing)
        is_child = filled & (code >= width)
        beam = np.where(is_child, 0, code)
        child = np.maximum(code - width, 0)
        step_nodes = nodes[rows, beam]
        step_nodes[is_child] = tree.children(nodes[rows, child // classes][is_child], (child % classes)[is_child])
        step_probs = np.where(is_child, np.stack([totals, np.full_like(totals, -np.inf), totals]),
                              new[:, rows, beam])
        keep = stepping[:, None]
        nodes = np.where(keep, step_nodes, nodes)
        probs = np.where(keep, step_probs, probs)
        valid = np.where(keep, filled, valid)
    return tree, nodes, probs[0], valid


@CTCBeamSearchDecoder.kernel("CPU", expensive=True)
def _ctc_beam_search_decoder(ctx: OpKernelContext, inputs: Any, sequence_length: Any, beam_width: int,
                             top_paths: int, merge_repeated: bool) -> list[np.ndarray]:
    _check_decoder_inputs(ctx, inputs, sequence_length)
    if top_paths > beam_width:
        raise invalid_argument(ctx, "requested more paths than the beam width.")
    tree, nodes, totals, active = _beam_search(inputs, sequence_length, beam_width)
    if (active.sum(axis=1) < top_paths).any():
        raise invalid_argument(ctx, "Less leaves in the beam search than requested.")
    order = np.argsort(-np.where(active, totals, -np.inf), axis=1, kind="stable")[:, :top_paths]
    best = np.take_along_axis(nodes, order, axis=1)
    labels, keep = tree.sequences(best.T.reshape(-1), merge_repeated)
    batch = inputs.shape[1]
    parts: list[list[np.ndarray]] = [[], [], []]
    for path in range(top_paths):  # the outputs are one SparseTensor per path
        rows = slice(path * batch, (path + 1) * batch)
        for part, value in zip(parts, _sparse_paths(keep[rows], labels[rows])):
            part.append(value)
    log_probability = np.take_along_axis(totals, order, axis=1).astype(inputs.dtype)
    return [*parts[0], *parts[1], *parts[2], log_probability]


def _sparse_result(indices: Tensor, values: Tensor, shape: Tensor) -> SparseTensor:
    return SparseTensor(indices, values, shape)


@tf_export("nn.ctc_loss")
def ctc_loss(labels: Any, inputs: Any = None, sequence_length: Any = None, preprocess_collapse_repeated: bool = False,
             ctc_merge_repeated: bool = True, ignore_longer_outputs_than_inputs: bool = False, time_major: bool = True,
             logits: Any = None) -> Tensor:
    """The CTC loss of each batch row: -log p(labels | inputs) over all alignments, [batch]. `labels` is a
    SparseTensor of int32 class ids (the blank is the last class); `inputs` are unnormalized logits,
    [max_time, batch, classes] (with `time_major`)."""
    if not isinstance(labels, SparseTensor):
        raise TypeError(f"Expected argument `labels` to be a SparseTensor. Received labels={labels} of type: "
                        f"{type(labels).__name__}")
    if logits is not None and inputs is not None:
        raise ValueError("Cannot specify both 'logits' and 'inputs'")
    inputs = convert_to_tensor(logits if logits is not None else inputs, name="logits")
    if not time_major:
        inputs = manipulation_ops.transpose(inputs, [1, 0, 2])
    original = inputs.dtype
    if original in (dtypes.float16, dtypes.bfloat16):
        inputs = cast_ops.cast(inputs, dtypes.float32)
    loss, _ = CTCLoss(inputs, labels.indices, labels.values, sequence_length,
                      preprocess_collapse_repeated=preprocess_collapse_repeated, ctc_merge_repeated=ctc_merge_repeated,
                      ignore_longer_outputs_than_inputs=ignore_longer_outputs_than_inputs)
    if original in (dtypes.float16, dtypes.bfloat16):
        loss = cast_ops.cast(loss, original)
    return loss


def _blank_last(logits: Tensor, labels: Any, blank_index: int) -> tuple[Tensor, Any]:
    """The classes reordered so that the blank `blank_index` comes last, as CTCLoss wants it, and label ids
    above it moved down by one."""
    logits = manipulation_ops.concat([logits[:, :, :blank_index], logits[:, :, blank_index + 1:],
                                      logits[:, :, blank_index:blank_index + 1]], axis=2)
    values = labels.values
    moved = elementwise_ops.where(values < blank_index, values, values - 1)
    return logits, SparseTensor(labels.indices, moved, labels.dense_shape)


def _dense_to_sparse_labels(labels: Tensor, label_length: Tensor) -> SparseTensor:
    """The first `label_length[b]` labels of each row of a dense [batch, max_len] tensor, as a SparseTensor."""
    mask = manipulation_ops.sequence_mask(label_length, maxlen=shape_ops.shape(labels)[1])
    indices = indexing_ops.where(mask)
    values = cast_ops.cast(indexing_ops.gather_nd(labels, indices), dtypes.int32)
    return SparseTensor(indices, values, cast_ops.cast(shape_ops.shape(labels), dtypes.int64))


@tf_export("nn.ctc_loss_v2")
def ctc_loss_v2(labels: Any, logits: Any, label_length: Any, logit_length: Any, logits_time_major: bool = True,
                unique: Any = None, blank_index: int | None = None, name: str | None = None) -> Tensor:
    """TF 2's CTC loss: labels dense ([batch, max_label_len] with `label_length`; blank 0 by default) or a
    SparseTensor (then `blank_index` is required). Computed by the CTCLoss kernel, the classes reordered so
    the blank comes last; `unique` (a speed hint in TF) changes nothing here."""
    del unique
    if isinstance(labels, SparseTensor):  # TF hands these to ctc_loss itself, outside any scope of its own
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when labels is a SparseTensor.")
        num_classes = _static_or_dynamic_dim(logits, 2)
        if blank_index < 0:
            blank_index += num_classes
        if not isinstance(num_classes, int) or blank_index != num_classes - 1:
            logits, labels = _blank_last(logits, labels, blank_index)
        return ctc_loss(labels, logits, logit_length, time_major=logits_time_major)
    with name_scope(name, "ctc_loss_dense", [logits, labels, label_length, logit_length]):
        logits = convert_to_tensor(logits, name="logits")
        labels = _dense_to_sparse_labels(convert_to_tensor(labels, name="labels"),
                                         convert_to_tensor(label_length, name="label_length"))
        blank_index = 0 if blank_index is None else blank_index
        if not logits_time_major:
            logits = manipulation_ops.transpose(logits, [1, 0, 2])
        num_classes = logits.shape.dims[2].value if logits.shape.ndims == 3 else None
        if blank_index < 0:
            if num_classes is None:
                raise ValueError("The number of classes must be known statically for a negative blank_index.")
            blank_index += num_classes
        if num_classes is None or blank_index != num_classes - 1:
            logits, labels = _blank_last(logits, labels, blank_index)
        return ctc_loss(labels, logits, cast_ops.cast(logit_length, dtypes.int32), time_major=True)


def _static_or_dynamic_dim(tensor: Any, i: int) -> Any:
    """`tensor.shape[i]`, or where it is unknown the size at run time (TF's _get_dim)."""
    shape = tensor_shape.TensorShape(tensor.shape if hasattr(tensor, "shape") else np.shape(tensor))
    return shape.dims[i].value or shape_ops.shape(tensor)[i]


@tf_export("nn.ctc_greedy_decoder")
def ctc_greedy_decoder(inputs: Any, sequence_length: Any, merge_repeated: bool = True,
                       blank_index: int | None = None) -> tuple[list[SparseTensor], Tensor]:
    """([decoded SparseTensor], [batch, 1] minus the summed best logits): the best class at each step,
    repeats merged (with `merge_repeated`) and blanks (the last class by default) dropped."""
    outputs = CTCGreedyDecoder(inputs, sequence_length, merge_repeated=merge_repeated,
                               blank_index=-1 if blank_index is None else blank_index)
    return [_sparse_result(*outputs[:3])], outputs[3]


@tf_export("nn.ctc_beam_search_decoder")
def ctc_beam_search_decoder(inputs: Any, sequence_length: Any, beam_width: int = 100, top_paths: int = 1,
                            merge_repeated: bool = True) -> tuple[list[SparseTensor], Tensor]:
    """(the `top_paths` best label sequences as SparseTensors, their [batch, top_paths] log probabilities)
    from a prefix beam search of width `beam_width`; the blank is the last class."""
    outputs = CTCBeamSearchDecoder(inputs, sequence_length, beam_width=beam_width, top_paths=top_paths,
                                   merge_repeated=merge_repeated)
    decoded = [_sparse_result(outputs[p], outputs[top_paths + p], outputs[2 * top_paths + p])
               for p in range(top_paths)]
    return decoded, outputs[-1]


@tf_export("nn.ctc_beam_search_decoder_v2")
def ctc_beam_search_decoder_v2(inputs: Any, sequence_length: Any, beam_width: int = 100,
                               top_paths: int = 1) -> tuple[list[SparseTensor], Tensor]:
    """`ctc_beam_search_decoder` with repeated labels of a path kept (TF 2's form)."""
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width=beam_width, top_paths=top_paths,
                                   merge_repeated=False)


@tf_export("nn.ctc_unique_labels")
def ctc_unique_labels(labels: Any, name: str | None = None) -> list[Tensor]:
    """Per row of dense `labels`, its distinct labels in order of appearance (zero-padded, int64) and the
    index of each label among them (int32)."""
    with name_scope(name, "ctc_unique_labels", [labels]):
        labels = convert_to_tensor(labels, name="labels")

        def unique_row(row: Tensor) -> list[Tensor]:
            values, index = set_ops.unique(row)
            padded = manipulation_ops.pad(values, [[0, shape_ops.shape(index)[0] - shape_ops.shape(values)[0]]])
            return [cast_ops.cast(padded, dtypes.int64), index]

        return functional_ops.map_fn(unique_row, labels, dtype=[dtypes.int64, dtypes.int32])


@tf_export("nn.collapse_repeated")
def collapse_repeated(labels: Any, seq_length: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """Each row's labels with runs of one label merged into one, left-aligned and zero-padded, and the new
    lengths."""
    with name_scope(name, "collapse_repeated_labels", [labels, seq_length]):
        labels = convert_to_tensor(labels, name="labels")
        seq_length = convert_to_tensor(seq_length, name="seq_length")
        starts = manipulation_ops.concat([fill_ops.ones_like(labels[:, :1], dtypes.bool),
                                          elementwise_ops.not_equal(labels[:, 1:], labels[:, :-1])], axis=1)
        max_len = labels.shape.dims[1].value if labels.shape.dims[1].value is not None else shape_ops.shape(labels)[1]
        keep = elementwise_ops.logical_and(starts, manipulation_ops.sequence_mask(seq_length, maxlen=max_len))
        new_length = reduction_ops.reduce_sum(cast_ops.cast(keep, dtypes.int32), axis=1)
        new_max_len = reduction_ops.reduce_max(new_length)
        slots = shape_ops.reshape(manipulation_ops.sequence_mask(new_length, maxlen=new_max_len), [-1])
        flat = scatter_ops.scatter_nd(
            shape_ops.expand_dims(indexing_ops.boolean_mask(sequence_ops.range(shape_ops.shape(slots)[0]), slots), 1),
            indexing_ops.boolean_mask(shape_ops.reshape(labels, [-1]), shape_ops.reshape(keep, [-1])),
            shape_ops.shape(slots))
        batch = labels.shape.dims[0].value if labels.shape.dims[0].value is not None else shape_ops.shape(labels)[0]
        return shape_ops.reshape(flat, [batch, new_max_len]), cast_ops.cast(new_length, seq_length.dtype)
