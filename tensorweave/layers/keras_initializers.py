"""The Keras 2 initializers that TF 2.21's tf.layers use where TF2 behaviour is on: a floating weight's default
(glorot_uniform) and the variance-scaling family named by string ("he_normal", ...).

Unlike TF1's initializers they draw with stateless random ops, so the graph-level seed does not reach them:
each instance fixes its seed when first called — the `seed` given, else one drawn from Python's `random`
module as Keras draws it — and so gives the same values every time it is called (a program that seeds
`random` gets TF's values). They take no `partition_info`: a shard of a partitioned variable is drawn as a
whole variable of its own shape, as in TF.
"""

from __future__ import annotations

import math
import random
from typing import Any

from tensorweave.framework import dtypes
from tensorweave.framework.graph import Tensor
from tensorweave.ops import init_ops, random_ops


class VarianceScaling(init_ops.VarianceScaling):
    """Keras 2's VarianceScaling: TF1's scales and checks, stateless draws ('normal' means 'truncated_normal')."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal",
                 seed: int | None = None) -> None:
        super().__init__(scale=scale, mode=mode, distribution=distribution, seed=seed)
        if self.distribution == "normal":
            self.distribution = "truncated_normal"
        self._stateless_seed: int | None = None

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        if not dtype.is_floating:
            raise ValueError(f"Expected floating point type, got {dtype}.")
        if self._stateless_seed is None:
            self._stateless_seed = self.seed if self.seed is not None else random.randint(1, int(1e9))
        seed = [self._stateless_seed, 0]
        fan_in, fan_out = init_ops._compute_fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.}[self.mode]
        scale = self.scale / max(1., fan)
        if self.distribution == "truncated_normal":
            stddev = math.sqrt(scale) / init_ops._TRUNCATED_NORMAL_STDDEV
            return random_ops.stateless_truncated_normal(shape, seed, 0.0, stddev, dtype)
        if self.distribution == "untruncated_normal":
            return random_ops.stateless_random_normal(shape, seed, 0.0, math.sqrt(scale), dtype)
        limit = math.sqrt(3.0 * scale)
        return random_ops.stateless_random_uniform(shape, seed, -limit, limit, dtype)

    def get_config(self) -> dict:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed}


def _named(class_name: str, base: type, scale: float, mode: str, distribution: str) -> type:
    """A `base` variance scaling of fixed parameters under its Keras name, configured by its seed alone."""
    def __init__(self: Any, seed: int | None = None) -> None:
        base.__init__(self, scale=scale, mode=mode, distribution=distribution, seed=seed)

    def get_config(self: Any) -> dict:
        return {"seed": self.seed}

    return type(class_name, (base,), {"__init__": __init__, "get_config": get_config, "__module__": __name__,
                                      "__doc__": f"Keras's {class_name}: {distribution}, scale {scale} over {mode}."})


_FAMILY = {"glorot_uniform": ("GlorotUniform", 1.0, "fan_avg", "uniform"),
           "glorot_normal": ("GlorotNormal", 1.0, "fan_avg", "truncated_normal"),
           "he_normal": ("HeNormal", 2.0, "fan_in", "truncated_normal"),
           "he_uniform": ("HeUniform", 2.0, "fan_in", "uniform"),
           "lecun_normal": ("LecunNormal", 1.0, "fan_in", "truncated_normal"),
           "lecun_uniform": ("LecunUniform", 1.0, "fan_in", "uniform")}

# By Keras name, what a string gives under TF2 behaviour, and under TF1's (where glorot_* are TF1's own).
KERAS_2 = {name: _named(spec[0], VarianceScaling, *spec[1:]) for name, spec in _FAMILY.items()}
KERAS_1 = {name: _named(spec[0], init_ops.VarianceScaling, *spec[1:]) for name, spec in _FAMILY.items()
           if not name.startswith("glorot")}
GlorotUniform = KERAS_2["glorot_uniform"]


def by_class_name(class_name: str, keras_2: bool) -> type | None:
    """The Keras class a serialized initializer names (None: one of TF1's own)."""
    table = KERAS_2 if keras_2 else KERAS_1
    if keras_2 and class_name == "VarianceScaling":
        return VarianceScaling
    return next((cls for cls in table.values() if cls.__name__ == class_name), None)
