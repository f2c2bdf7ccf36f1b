"""`tf.case` and `tf.switch_case`: n-way conditionals built, as TF1 builds `tf.case`, from nested `tf.cond`s
(the first predicate's cond outermost, so predicates are tested in order and only the chosen branch runs).

Without a `default`, `tf.case` takes its last pair's function as the default, guarded by assertions that no
other predicate holds and that its own does; `exclusive=True` adds an assertion, before any branch runs,
that at most one predicate holds. `tf.switch_case` builds one functional `StatelessCase` op, as TF 2.21 does
in graph mode too (ops/cond_v2.py): an index out of range takes `default`, or the branch with the largest key
when there is none.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Sequence
from typing import Any

from tensorweave.framework import dtypes
from tensorweave.framework.graph import Operation, Tensor, control_dependencies, name_scope
from tensorweave.ops import (
    cond_v2,
    constant_ops,
    control_flow_ops,
    logging_ops,
    manipulation_ops,
    reduction_ops,
)
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.elementwise_ops import less_equal
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

Branch = Callable[[], Any]


def _assert_at_most_n_true(predicates: Sequence[Tensor], n: int, msg: str) -> Operation:
    """An assertion that at most `n` of the predicates hold; its message lists them and their values."""
    stacked = manipulation_ops.stack(predicates, name="preds_c")
    count = reduction_ops.reduce_sum(cast(stacked, dtypes.int32), name="num_true_conds")
    holds = less_equal(count, constant_ops.constant(n, name="n_true_conds"))
    names = ", ".join(getattr(p, "name", "?") for p in predicates)
    return logging_ops.Assert_(holds, [f"{msg}: more than {n} conditions ({names}) evaluated as True:", stacked],
                               summarize=len(predicates))


def _default_from_last_pair(predicates: Sequence[Tensor], actions: Sequence[Branch]
                            ) -> tuple[Branch, Sequence[Tensor], Sequence[Branch]]:
    """With no default, the last pair's function is the default, run only after asserting that no other
    predicate holds and that its own does; returns it and the remaining pairs."""
    last = len(predicates) - 1
    predicate, action = predicates[last], actions[last]
    others, other_actions = predicates[:last], actions[:last]

    def default_action() -> Any:
        others_msg = (f"Implementation error: selected default action #{last} was called, but some of other "
                      "predicates are True: ")
        none_msg = ("Input error: None of conditions evaluated as True:",
                    manipulation_ops.stack(predicates, name="preds_c"))
        with control_dependencies([_assert_at_most_n_true(others, n=0, msg=others_msg),
                                   logging_ops.Assert_(predicate, data=none_msg)]):
            return action()

    return default_action, others, other_actions


def _nested_conds(predicates: Sequence[Tensor], actions: Sequence[Branch], default: Branch,
                  **cond_kwargs: Any) -> Branch:
    """`cond(p0, a0, lambda: cond(p1, a1, ... default))`, built from the inside out, unbuilt."""
    fn = default
    for predicate, action in reversed(list(zip(predicates, actions))):
        fn = functools.partial(control_flow_ops.cond, predicate, true_fn=action, false_fn=fn, **cond_kwargs)
    return fn


def _case_pairs(pred_fn_pairs: Any, exclusive: bool, name: str | None) -> tuple[list[Tensor], list[Branch]]:
    """The predicates and functions of `pred_fn_pairs`, checked as TF checks them (a plain dict is ordered
    by its predicates' names)."""
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, collections.OrderedDict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
        if not exclusive:
            tf_logging.warning("%s: An unordered dictionary of predicate/fn pairs was provided, but "
                               "exclusive=False. The order of conditional tests is deterministic but not "
                               "guaranteed.", name)
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if not isinstance(pred, Tensor):
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if pred.dtype != dtypes.bool:
            raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    predicates, actions = zip(*pred_fn_pairs)  # no pairs: Python's unpacking error, as TF's
    return list(predicates), list(actions)


@tf_export("case")
def case(pred_fn_pairs: Any, default: Branch | None = None, exclusive: bool = False, strict: bool = False,
         name: str = "case") -> Any:
    """The result of the function of the first predicate that holds, else of `default` (TF1's `tf.case`):
    a dict or list of (bool scalar tensor, callable) pairs; every callable returns the same structure."""
    predicates, actions = _case_pairs(pred_fn_pairs, exclusive, name)
    with name_scope(name, "case", [predicates]):
        if default is None:
            default, predicates, actions = _default_from_last_pair(predicates, actions)
        fn = _nested_conds(predicates, actions, default, strict=strict)
        if not exclusive:
            return fn()
        with control_dependencies([_assert_at_most_n_true(predicates, n=1, msg="Input error: exclusive=True")]):
            return fn()


def _indexed_branches(branch_fns: Any, default: Branch | None, branch_index: Any) -> list[Branch]:
    """The branch functions in key order, `default` last, checked as TF checks them."""
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    if isinstance(branch_fns, dict):
        branch_fns = list(branch_fns.items())
    if all(callable(fn) for fn in branch_fns):
        branch_fns = list(enumerate(branch_fns))
    for pair in branch_fns:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [key for key, _ in branch_fns]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but found "
                         f"{{{','.join(map(str, sorted(keys)))}}}")
    return [fn for _, fn in sorted(branch_fns, key=lambda pair: pair[0])] + ([default] if default is not None else [])


@tf_export("switch_case")
def switch_case(branch_index: Tensor, branch_fns: Any, default: Branch | None = None,
                name: str = "switch_case") -> Any:
    """The result of the branch keyed by `branch_index`, else of `default`, else of the largest key's
    branch (TF's `tf.switch_case`): `branch_fns` is a dict or list of (int, callable) pairs, or a list of
    callables keyed by position."""
    branches = _indexed_branches(branch_fns, default, branch_index)
    with name_scope(name, "switch_case", [branch_index]):
        return cond_v2.indexed_case(branch_index, branches)
