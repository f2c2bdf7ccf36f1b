"""`tf.distributions.Distribution`: the base class of TF1's distributions, and the reparameterization types.

A subclass implements the underscore forms (`_log_prob`, `_sample_n`, `_batch_shape`, ...); the public
methods here open the distribution's name scope (`<name>/<method>/`), convert the argument to the
distribution's dtype, and fall back as TF does where a subclass gives only the sibling (`prob` from
`log_prob` by exp and back by log, `cdf` and `log_cdf`, the survival functions from `cdf`, `stddev` and
`variance`). `sample(sample_shape)` draws `prod(sample_shape)` batches with `_sample_n` and reshapes them to
`sample_shape + batch_shape + event_shape`, setting whatever of that shape is known statically.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tensorweave.ops.check_ops import assert_positive, assert_same_float_dtype
from tensorweave.ops.distributions import kullback_leibler
from tensorweave.ops.elementwise_ops import equal, exp, log, log1p, sqrt, square
from tensorweave.ops.manipulation_ops import concat, identity
from tensorweave.ops.reduction_ops import reduce_prod
from tensorweave.ops.shape_ops import broadcast_dynamic_shape, broadcast_static_shape, reshape, shape
from tensorweave.platform.tf_export import export_value, tf_export


@tf_export("distributions.ReparameterizationType")
class ReparameterizationType:
    """Whether samples are a differentiable function of the parameters (FULLY_REPARAMETERIZED) or not
    (NOT_REPARAMETERIZED): the two instances are singletons, compared by identity."""

    def __init__(self, rep_type: str) -> None:
        self._rep_type = rep_type

    def __repr__(self) -> str:
        return f"<Reparameterization Type: {self._rep_type}>"

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = object.__hash__


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
export_value(FULLY_REPARAMETERIZED, "distributions.FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")
export_value(NOT_REPARAMETERIZED, "distributions.NOT_REPARAMETERIZED")


@tf_export("distributions.Distribution")
class Distribution:
    """A batch of probability distributions of one family: `batch_shape` independent members, each drawing
    events of `event_shape`."""

    def __init__(self, dtype: Any, reparameterization_type: ReparameterizationType, validate_args: bool,
                 allow_nan_stats: bool, parameters: dict | None = None, graph_parents: list | None = None,
                 name: str | None = None) -> None:
        graph_parents = [] if graph_parents is None else graph_parents
        for i, t in enumerate(graph_parents):
            if t is None or not tensor_util.is_tensor(t):
                raise ValueError(f"Graph parent item {i} is not a Tensor; {t}.")
        if not name or name[-1] != "/":  # not yet a name scope: make it one, unique in the graph
            with name_scope(name or type(self).__name__) as name:
                pass
        self._dtype = dtype
        self._reparameterization_type = reparameterization_type
        self._allow_nan_stats = allow_nan_stats
        self._validate_args = validate_args
        self._parameters = parameters or {}
        self._graph_parents = graph_parents
        self._name = name

    @property
    def _parameters(self) -> dict:
        return self._parameter_dict

    @_parameters.setter
    def _parameters(self, value: dict) -> None:
        """The constructor's `locals()`, without `self`, for `parameters` and `copy`."""
        value.pop("self", None)
        value.pop("__class__", None)
        self._parameter_dict = value

    @classmethod
    def param_shapes(cls, sample_shape: Any, name: str = "DistributionParamShapes") -> dict[str, Tensor]:
        """The shapes of the parameters that give samples of `sample_shape`."""
        with name_scope(name, values=[sample_shape]):
            return cls._param_shapes(sample_shape)

    @classmethod
    def param_static_shapes(cls, sample_shape: Any) -> dict[str, tensor_shape.TensorShape]:
        """`param_shapes` as TensorShapes, for a statically known `sample_shape`."""
        if isinstance(sample_shape, tensor_shape.TensorShape):
            if not sample_shape.is_fully_defined():
                raise ValueError("TensorShape sample_shape must be fully defined")
            sample_shape = sample_shape.as_list()
        static = {}
        for param, param_shape in cls.param_shapes(sample_shape).items():
            value = tensor_util.constant_value(param_shape)
            if value is None:
                raise ValueError("sample_shape must be a fully-defined TensorShape or list/tuple")
            static[param] = tensor_shape.TensorShape(value)
        return static

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        raise NotImplementedError("_param_shapes not implemented")

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def parameters(self) -> dict:
        """The constructor's arguments, as given."""
        return {k: v for k, v in self._parameters.items() if not k.startswith("__") and k != "self"}

    @property
    def reparameterization_type(self) -> ReparameterizationType:
        return self._reparameterization_type

    @property
    def allow_nan_stats(self) -> bool:
        return self._allow_nan_stats

    @property
    def validate_args(self) -> bool:
        return self._validate_args

    def copy(self, **override_parameters_kwargs: Any) -> Distribution:
        """A new distribution of this class from this one's parameters, some replaced."""
        return type(self)(**dict(self.parameters, **override_parameters_kwargs))

    # -- shapes ------------------------------------------------------------------------------------------------

    def _batch_shape_tensor(self) -> Tensor:
        raise NotImplementedError(f"batch_shape_tensor is not implemented: {type(self).__name__}")

    def batch_shape_tensor(self, name: str = "batch_shape_tensor") -> Tensor:
        """The batch shape as an int32 vector: a constant when it is known statically."""
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return convert_to_tensor(self.batch_shape.as_list(), dtype=dtypes.int32, name="batch_shape")
            return self._batch_shape_tensor()

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape(None)

    @property
    def batch_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.as_shape(self._batch_shape())

    def _event_shape_tensor(self) -> Tensor:
        raise NotImplementedError(f"event_shape_tensor is not implemented: {type(self).__name__}")

    def event_shape_tensor(self, name: str = "event_shape_tensor") -> Tensor:
        """The event shape as an int32 vector: a constant when it is known statically."""
        with self._name_scope(name):
            if self.event_shape.is_fully_defined():
                return convert_to_tensor(self.event_shape.as_list(), dtype=dtypes.int32, name="event_shape")
            return self._event_shape_tensor()

    def _event_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape(None)

    @property
    def event_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.as_shape(self._event_shape())

    def is_scalar_event(self, name: str = "is_scalar_event") -> Tensor:
        with self._name_scope(name):
            return convert_to_tensor(self._is_scalar_helper(self.event_shape, self.event_shape_tensor),
                                     name="is_scalar_event")

    def is_scalar_batch(self, name: str = "is_scalar_batch") -> Tensor:
        with self._name_scope(name):
            return convert_to_tensor(self._is_scalar_helper(self.batch_shape, self.batch_shape_tensor),
                                     name="is_scalar_batch")

    def _is_scalar_helper(self, static_shape: tensor_shape.TensorShape, dynamic_shape_fn: Any) -> Any:
        """A Python bool where the rank is known statically, else a bool tensor."""
        if static_shape.ndims is not None:
            return static_shape.ndims == 0
        dynamic = dynamic_shape_fn()
        if dynamic.get_shape().ndims is not None and dynamic.get_shape().dims[0].value is not None:
            return dynamic.get_shape().as_list() == [0]
        return equal(shape(dynamic)[0], 0)

    # -- sampling ----------------------------------------------------------------------------------------------

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        raise NotImplementedError(f"sample_n is not implemented: {type(self).__name__}")

    def sample(self, sample_shape: Any = (), seed: int | None = None, name: str = "sample") -> Tensor:
        """Samples of shape `sample_shape + batch_shape + event_shape`."""
        with self._name_scope(name, values=[sample_shape]):
            sample_shape = convert_to_tensor(sample_shape, dtype=dtypes.int32, name="sample_shape")
            sample_shape, n = self._expand_sample_shape_to_vector(sample_shape, "sample_shape")
            samples = self._sample_n(n, seed)
            final_shape = concat([sample_shape, shape(samples)[1:]], 0)
            samples = reshape(samples, final_shape)
            return self._set_sample_static_shape(samples, sample_shape)

    def _expand_sample_shape_to_vector(self, x: Tensor, name: str) -> tuple[Tensor, Any]:
        """`x` as a vector (a scalar becomes [x]) and the product of its entries (static where known)."""
        static = tensor_util.constant_value(x)
        prod = reduce_prod(x) if static is None else np.prod(static, dtype=x.dtype.as_numpy_dtype)
        ndims = x.get_shape().ndims
        if ndims is None:
            x = reshape(x, [-1])
        elif ndims == 0:
            x = (reshape(x, [1]) if static is None
                 else convert_to_tensor(np.array([static], dtype=x.dtype.as_numpy_dtype), name=name))
        elif ndims != 1:
            raise ValueError("Input is neither scalar nor vector.")
        return x, prod

    def _set_sample_static_shape(self, x: Tensor, sample_shape: Tensor) -> Tensor:
        """Merge into `x`'s static shape what is known of `sample_shape`, the batch shape and the event shape."""
        sample_shape = tensor_shape.TensorShape(tensor_util.constant_value(sample_shape))
        ndims = x.get_shape().ndims
        sample_ndims = sample_shape.ndims
        batch_ndims = self.batch_shape.ndims
        event_ndims = self.event_shape.ndims
        if ndims is None and None not in (sample_ndims, batch_ndims, event_ndims):
            ndims = sample_ndims + batch_ndims + event_ndims
            x.set_shape([None] * ndims)
        if ndims is not None and sample_ndims is not None:
            x.set_shape(x.get_shape().merge_with(sample_shape.concatenate([None] * (ndims - sample_ndims))))
        if ndims is not None and event_ndims is not None:
            known = tensor_shape.TensorShape([None] * (ndims - event_ndims)).concatenate(self.event_shape)
            x.set_shape(x.get_shape().merge_with(known))
        if batch_ndims is not None:
            if ndims is not None:
                if sample_ndims is None and event_ndims is not None:
                    sample_ndims = ndims - batch_ndims - event_ndims
                elif event_ndims is None and sample_ndims is not None:
                    event_ndims = ndims - batch_ndims - sample_ndims
            if sample_ndims is not None and event_ndims is not None:
                known = (tensor_shape.TensorShape([None] * sample_ndims).concatenate(self.batch_shape)
                         .concatenate([None] * event_ndims))
                x.set_shape(x.get_shape().merge_with(known))
        return x

    # -- densities and distribution functions ----------------------------------------------------------------

    def _value_method(self, name: str, value: Any, primary: str, fallback: str, via: Any) -> Tensor:
        """`self.<primary>(value)` in the scope `name`, else `via(self.<fallback>(value))` (TF's fallbacks);
        the first NotImplementedError is the one raised when neither exists."""
        with self._name_scope(name, values=[value]):
            value = convert_to_tensor(value, name="value", preferred_dtype=self.dtype)
            try:
                return getattr(self, primary)(value)
            except NotImplementedError as original:
                try:
                    return via(getattr(self, fallback)(value))
                except NotImplementedError:
                    raise original from None

    def _log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"log_prob is not implemented: {type(self).__name__}")

    def log_prob(self, value: Any, name: str = "log_prob") -> Tensor:
        """log p(value), per batch member."""
        return self._value_method(name, value, "_log_prob", "_prob", log)

    def _prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"prob is not implemented: {type(self).__name__}")

    def prob(self, value: Any, name: str = "prob") -> Tensor:
        """p(value), per batch member."""
        return self._value_method(name, value, "_prob", "_log_prob", exp)

    def _log_cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"log_cdf is not implemented: {type(self).__name__}")

    def log_cdf(self, value: Any, name: str = "log_cdf") -> Tensor:
        """log P[X <= value]."""
        return self._value_method(name, value, "_log_cdf", "_cdf", log)

    def _cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"cdf is not implemented: {type(self).__name__}")

    def cdf(self, value: Any, name: str = "cdf") -> Tensor:
        """P[X <= value]."""
        return self._value_method(name, value, "_cdf", "_log_cdf", exp)

    def _log_survival_function(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"log_survival_function is not implemented: {type(self).__name__}")

    def log_survival_function(self, value: Any, name: str = "log_survival_function") -> Tensor:
        """log P[X > value]; from `cdf` as log1p(-cdf) where no closed form is given."""
        return self._value_method(name, value, "_log_survival_function", "cdf", lambda c: log1p(-c))

    def _survival_function(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"survival_function is not implemented: {type(self).__name__}")

    def survival_function(self, value: Any, name: str = "survival_function") -> Tensor:
        """P[X > value]; 1 - cdf where no closed form is given."""
        return self._value_method(name, value, "_survival_function", "cdf", lambda c: 1. - c)

    def _quantile(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"quantile is not implemented: {type(self).__name__}")

    def quantile(self, value: Any, name: str = "quantile") -> Tensor:
        """The x with P[X <= x] = value."""
        with self._name_scope(name, values=[value]):
            return self._quantile(convert_to_tensor(value, name="value", preferred_dtype=self.dtype))

    # -- statistics ----------------------------------------------------------------------------------------------

    def _entropy(self) -> Tensor:
        raise NotImplementedError(f"entropy is not implemented: {type(self).__name__}")

    def entropy(self, name: str = "entropy") -> Tensor:
        """Shannon entropy in nats."""
        with self._name_scope(name):
            return self._entropy()

    def _mean(self) -> Tensor:
        raise NotImplementedError(f"mean is not implemented: {type(self).__name__}")

    def mean(self, name: str = "mean") -> Tensor:
        with self._name_scope(name):
            return self._mean()

    def _variance(self) -> Tensor:
        raise NotImplementedError(f"variance is not implemented: {type(self).__name__}")

    def variance(self, name: str = "variance") -> Tensor:
        """Var[X]; the square of `stddev` where only that is given."""
        with self._name_scope(name):
            try:
                return self._variance()
            except NotImplementedError as original:
                try:
                    return square(self._stddev())
                except NotImplementedError:
                    raise original from None

    def _stddev(self) -> Tensor:
        raise NotImplementedError(f"stddev is not implemented: {type(self).__name__}")

    def stddev(self, name: str = "stddev") -> Tensor:
        """sqrt(Var[X]); from `variance` where only that is given."""
        with self._name_scope(name):
            try:
                return self._stddev()
            except NotImplementedError as original:
                try:
                    return sqrt(self._variance())
                except NotImplementedError:
                    raise original from None

    def _covariance(self) -> Tensor:
        raise NotImplementedError(f"covariance is not implemented: {type(self).__name__}")

    def covariance(self, name: str = "covariance") -> Tensor:
        """Cov[X_i, X_j] over the event's entries: `batch_shape + [k, k]`."""
        with self._name_scope(name):
            return self._covariance()

    def _mode(self) -> Tensor:
        raise NotImplementedError(f"mode is not implemented: {type(self).__name__}")

    def mode(self, name: str = "mode") -> Tensor:
        with self._name_scope(name):
            return self._mode()

    def cross_entropy(self, other: Distribution, name: str = "cross_entropy") -> Tensor:
        """H[self, other] in nats, from the registered KL divergence."""
        with self._name_scope(name):
            return kullback_leibler.cross_entropy(self, other, allow_nan_stats=self.allow_nan_stats)

    def kl_divergence(self, other: Distribution, name: str = "kl_divergence") -> Tensor:
        """KL(self || other), from the registry."""
        with self._name_scope(name):
            return kullback_leibler.kl_divergence(self, other, allow_nan_stats=self.allow_nan_stats)

    def __str__(self) -> str:
        batch = f", batch_shape={self.batch_shape}" if self.batch_shape.ndims is not None else ""
        event = f", event_shape={self.event_shape}" if self.event_shape.ndims is not None else ""
        return f'tfp.distributions.{type(self).__name__}("{self.name}"{batch}{event}, dtype={self.dtype.name})'

    def __repr__(self) -> str:
        return (f"<tfp.distributions.{type(self).__name__} '{self.name}' batch_shape={self.batch_shape} "
                f"event_shape={self.event_shape} dtype={self.dtype.name}>")

    @contextlib.contextmanager
    def _name_scope(self, name: str | None = None, values: list | None = None) -> Iterator[str]:
        """The method's scope inside the distribution's own: `<distribution name>/<method>/`."""
        with name_scope(self.name):
            with name_scope(name, values=([] if values is None else values) + self._graph_parents) as scope:
                yield scope


class LocationScale(Distribution):
    """A scalar-event distribution batched by broadcasting `loc` against `scale` (Normal, Laplace): their
    shared parameter properties and shapes."""

    _loc: Tensor
    _scale: Tensor

    def _set_loc_scale(self, loc: Any, scale: Any, validate_args: bool) -> None:
        """`loc` and `scale` as this distribution's `loc`/`scale` tensors (in the caller's name scope), the
        scale checked positive when asked and both of one float dtype."""
        with control_dependencies([assert_positive(scale)] if validate_args else []):
            self._loc = identity(loc, name="loc")
            self._scale = identity(scale, name="scale")
            assert_same_float_dtype([self._loc, self._scale])

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        sample_shape = convert_to_tensor(sample_shape, dtype=dtypes.int32)
        return {"loc": sample_shape, "scale": sample_shape}

    @property
    def loc(self) -> Tensor:
        return self._loc

    @property
    def scale(self) -> Tensor:
        return self._scale

    def _batch_shape_tensor(self) -> Tensor:
        return broadcast_dynamic_shape(shape(self.loc), shape(self.scale))

    def _batch_shape(self) -> tensor_shape.TensorShape:
        return broadcast_static_shape(self.loc.get_shape(), self.scale.get_shape())

    def _event_shape_tensor(self) -> Tensor:
        return convert_to_tensor([], dtype=dtypes.int32)

    def _event_shape(self) -> tensor_shape.TensorShape:
        return tensor_shape.TensorShape([])
