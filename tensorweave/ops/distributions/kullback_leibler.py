"""The KL-divergence registry: `RegisterKL(A, B)` files the closed form for KL(A || B), `kl_divergence` finds
the registered pair nearest to two distributions' classes.

Invariant, as TF keeps it: one function per ordered pair of classes (registering a pair again is an error);
lookup walks both classes' method resolution orders and takes the pair with the smallest summed distance,
so a subclass inherits its parent's divergence unless it registers its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorweave.framework.graph import Tensor, control_dependencies, name_scope
from tensorweave.ops.elementwise_ops import is_nan, logical_not
from tensorweave.ops.logging_ops import Assert_
from tensorweave.ops.manipulation_ops import identity
from tensorweave.ops.reduction_ops import reduce_any
from tensorweave.platform.tf_export import tf_export

_DIVERGENCES: dict[tuple[type, type], Callable[..., Tensor]] = {}


def _registered_kl(type_a: type, type_b: type) -> Callable[..., Tensor] | None:
    """The function of the registered pair closest to (type_a, type_b) in their class hierarchies."""
    best, best_distance = None, None
    for distance_a, parent_a in enumerate(type_a.__mro__):
        for distance_b, parent_b in enumerate(type_b.__mro__):
            candidate = _DIVERGENCES.get((parent_a, parent_b))
            if candidate is not None and (best is None or distance_a + distance_b < best_distance):
                best, best_distance = candidate, distance_a + distance_b
    return best


@tf_export("distributions.kl_divergence")
def kl_divergence(distribution_a: Any, distribution_b: Any, allow_nan_stats: bool = True,
                  name: str | None = None) -> Tensor:
    """KL(distribution_a || distribution_b) by the registered closed form; with `allow_nan_stats=False` a NaN
    in the result fails the step (an Assert) instead of being returned."""
    kl_fn = _registered_kl(type(distribution_a), type(distribution_b))
    if kl_fn is None:
        raise NotImplementedError(
            "No KL(distribution_a || distribution_b) registered for distribution_a type "
            f"{type(distribution_a).__name__} and distribution_b type {type(distribution_b).__name__}")
    with name_scope("KullbackLeibler"):
        kl = kl_fn(distribution_a, distribution_b, name=name)
        if allow_nan_stats:
            return kl
        kl = identity(kl, name="kl")
        message = (f"KL calculation between {distribution_a.name} and {distribution_b.name} returned NaN values "
                   "(and was called with allow_nan_stats=False). Values:")
        with control_dependencies([Assert_(logical_not(reduce_any(is_nan(kl))), [message, kl])]):
            return identity(kl, name="checked_kl")


def cross_entropy(ref: Any, other: Any, allow_nan_stats: bool = True, name: str | None = None) -> Tensor:
    """H[ref, other] = entropy(ref) + KL(ref || other): what `Distribution.cross_entropy` computes."""
    with name_scope(name, "cross_entropy"):
        return ref.entropy() + kl_divergence(ref, other, allow_nan_stats=allow_nan_stats)


@tf_export("distributions.RegisterKL")
class RegisterKL:
    """Decorator filing a function `kl_fn(a, b, name=None)` as KL(dist_cls_a || dist_cls_b)."""

    def __init__(self, dist_cls_a: type, dist_cls_b: type) -> None:
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
        if not callable(kl_fn):
            raise TypeError(f"kl_fn must be callable, received: {kl_fn}")
        if self._key in _DIVERGENCES:
            raise ValueError(f"KL({self._key[0].__name__} || {self._key[1].__name__}) has already been registered "
                             f"to: {_DIVERGENCES[self._key]}")
        _DIVERGENCES[self._key] = kl_fn
        return kl_fn
