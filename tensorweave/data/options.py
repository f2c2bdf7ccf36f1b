"""`tf.data.Options` and its option groups: the settings a program attaches to a dataset (`with_options`).

Each group takes only the names TF's does (setting any other raises TF's AttributeError) and leaves every
option None, TF's "use the default", until set; merging takes the later value of each option that is set.
The pipeline reads few of them: they are kept so that TF1 programs that tune tf.data run unchanged, and an
OptionsDataset node serializes them as TF's `tensorflow.data.Options` proto (`_to_proto`).
"""

from __future__ import annotations

import enum
from typing import Any

from tensorweave.formats import protos
from tensorweave.platform.tf_export import export_value, tf_export

UNKNOWN_CARDINALITY = -2
INFINITE_CARDINALITY = -1
export_value(UNKNOWN_CARDINALITY, "data.UNKNOWN_CARDINALITY", "data.experimental.UNKNOWN_CARDINALITY")
export_value(INFINITE_CARDINALITY, "data.INFINITE_CARDINALITY", "data.experimental.INFINITE_CARDINALITY")


@tf_export("data.experimental.AutotuneAlgorithm")
class AutotuneAlgorithm(enum.Enum):
    """The autotuning algorithm (its value is TF's proto enum's)."""

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


@tf_export("data.experimental.AutoShardPolicy")
class AutoShardPolicy(enum.IntEnum):
    """How a distributed strategy shards a dataset (its value is TF's proto enum's)."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


@tf_export("data.experimental.ExternalStatePolicy")
class ExternalStatePolicy(enum.Enum):
    """How serializing a dataset treats external state (its value is TF's proto enum's)."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


class _OptionsGroup:
    """Named options, each None (or its `_defaults` value) until set, and nested groups; `_aliases` maps TF's
    older names; setting one to a value not of its type raises TF's TypeError. `_proto` is TF's message and `_fields` maps an option to its field where the names differ."""

    _options: tuple[str, ...] = ()
    _types: dict[str, type] = {}  # each option's type, where it is not bool
    _defaults: dict[str, Any] = {}
    _groups: dict[str, type[_OptionsGroup]] = {}
    _aliases: dict[str, str] = {}
    _proto = ""
    _fields: dict[str, str] = {}

    def __init__(self) -> None:
        for name in self._options:
            object.__setattr__(self, name, self._defaults.get(name))
        for name, group in self._groups.items():
            object.__setattr__(self, name, group())

    def __getattr__(self, name: str) -> Any:
        if name in type(self)._aliases:
            return getattr(self, type(self)._aliases[name])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        name = self._aliases.get(name, name)
        if name not in self._options:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        kind = self._types.get(name, bool)
        if not isinstance(value, kind):
            raise TypeError(f'Property "{name}" must be of type {kind}, got: {value} (type: {type(value)})')
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return id(self)

    def _merged(self, other: _OptionsGroup) -> _OptionsGroup:
        """TF's merge: each option `other` sets to other than its default wins."""
        merged = type(self)()
        for name in self._options:
            value = getattr(other, name)
            object.__setattr__(merged, name, getattr(self, name) if value == self._defaults.get(name) else value)
        for name in self._groups:
            object.__setattr__(merged, name, getattr(self, name)._merged(getattr(other, name)))
        return merged

    def _to_proto(self) -> Any:
        """TF's proto of these options: the options set, and every group (empty or not)."""
        message = protos.message_class(self._proto)()
        for name in self._options:
            value = getattr(self, name)
            field = self._fields.get(name, name)
            if isinstance(value, (list, tuple)):
                getattr(message, field).extend(value)
            elif value is not None:
                setattr(message, field, value.value if isinstance(value, enum.Enum) else value)
        for name in self._groups:
            getattr(message, self._fields.get(name, name)).CopyFrom(getattr(self, name)._to_proto())
        return message


@tf_export("data.experimental.AutotuneOptions")
class AutotuneOptions(_OptionsGroup):
    """How the pipeline's parallelism and buffers are autotuned."""

    _options = ("autotune_algorithm", "cpu_budget", "enabled", "initial_parallelism", "min_parallelism",
                "ram_budget")
    _types = {"autotune_algorithm": AutotuneAlgorithm, "cpu_budget": int, "initial_parallelism": int,
              "min_parallelism": int, "ram_budget": int}
    _proto = "tensorflow.data.AutotuneOptions"


@tf_export("data.experimental.OptimizationOptions")
class OptimizationOptions(_OptionsGroup):
    """Which static optimizations of the input pipeline to apply."""

    _options = ("apply_default_optimizations", "filter_fusion", "filter_parallelization", "inject_prefetch",
                "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion", "map_parallelization",
                "noop_elimination", "parallel_batch", "seq_interleave_prefetch", "shuffle_and_repeat_fusion")
    _proto = "tensorflow.data.OptimizationOptions"


@tf_export("data.experimental.ServiceOptions")
class ServiceOptions(_OptionsGroup):
    """How the tf.data service reads the dataset."""

    _options = ("pinned",)
    _proto = "tensorflow.data.ServiceOptions"


@tf_export("data.ThreadingOptions", "data.experimental.ThreadingOptions")
class ThreadingOptions(_OptionsGroup):
    """The threads a pipeline may use."""

    _options = ("max_intra_op_parallelism", "private_threadpool_size")
    _types = {"max_intra_op_parallelism": int, "private_threadpool_size": int}
    _proto = "tensorflow.data.ThreadingOptions"


@tf_export("data.experimental.DistributeOptions")
class DistributeOptions(_OptionsGroup):
    """How a distributed strategy shards a dataset."""

    _options = ("auto_shard_policy", "num_devices")
    _types = {"auto_shard_policy": AutoShardPolicy, "num_devices": int}
    _defaults = {"auto_shard_policy": AutoShardPolicy.AUTO}
    _proto = "tensorflow.data.DistributeOptions"


@tf_export("data.Options")
class Options(_OptionsGroup):
    """The options of a dataset (`Dataset.with_options`, `Dataset.options()`)."""

    _options = ("dataset_name", "deterministic", "experimental_external_state_policy", "experimental_slack",
                "experimental_symbolic_checkpoint", "experimental_warm_start", "framework_type")
    _types = {"dataset_name": str, "experimental_external_state_policy": ExternalStatePolicy, "framework_type": list}
    _groups = {"autotune": AutotuneOptions, "experimental_distribute": DistributeOptions,
               "experimental_optimization": OptimizationOptions, "experimental_service": ServiceOptions,
               "threading": ThreadingOptions}
    _aliases = {"experimental_deterministic": "deterministic", "experimental_threading": "threading"}
    _proto = "tensorflow.data.Options"
    _fields = {"autotune": "autotune_options", "experimental_distribute": "distribute_options",
               "experimental_external_state_policy": "external_state_policy",
               "experimental_optimization": "optimization_options", "experimental_service": "service_options",
               "experimental_slack": "slack", "experimental_symbolic_checkpoint": "symbolic_checkpoint",
               "experimental_warm_start": "warm_start", "threading": "threading_options"}

    def merge(self, options: Options) -> Options:
        """These options, overridden by every option set in `options`."""
        return self._merged(options)
