"""`tf.distributions.Exponential`: Gamma(1, rate), with its own sampler (-log(U) / rate over a uniform draw
from [tiny, 1)) and survival function."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops.distributions.gamma import Gamma
from tensorweave.ops.elementwise_ops import log
from tensorweave.ops.fill_ops import ones
from tensorweave.ops.manipulation_ops import concat
from tensorweave.ops.random_ops import random_uniform
from tensorweave.ops.shape_ops import shape
from tensorweave.platform.tf_export import tf_export


@tf_export("distributions.Exponential")
class Exponential(Gamma):
    """The exponential distribution: density rate * exp(-rate x) for x >= 0."""

    def __init__(self, rate: Any, validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Exponential") -> None:
        parameters = dict(locals())
        with name_scope(name, values=[rate]) as name:
            self._rate = convert_to_tensor(rate, name="rate")
        super().__init__(concentration=ones([], dtype=self._rate.dtype), rate=self._rate,
                         allow_nan_stats=allow_nan_stats, validate_args=validate_args, name=name)
        self._parameters = parameters
        self._graph_parents += [self._rate]

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        return {"rate": convert_to_tensor(sample_shape, dtype=dtypes.int32)}

    @property
    def rate(self) -> Tensor:
        return self._rate

    def _log_survival_function(self, value: Tensor) -> Tensor:
        return self._log_prob(value) - log(self._rate)

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        sampled = random_uniform(concat([[n], shape(self._rate)], 0),
                                 minval=np.finfo(self.dtype.as_numpy_dtype).tiny, maxval=1., seed=seed,
                                 dtype=self.dtype)
        return -log(sampled) / self._rate
