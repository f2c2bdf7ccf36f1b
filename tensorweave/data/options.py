"""`tf.data.Options` and its option groups: the settings a program attaches to a dataset (`with_options`).

Each group takes only the names TF's does (setting any other raises TF's AttributeError) and leaves every
option None, TF's "use the default", until set; merging takes the later value of each option that is set.
The pipeline here reads none of them: they are kept so that TF1 programs that tune tf.data run unchanged.
"""

from __future__ import annotations

from typing import Any

from tensorweave.platform.tf_export import export_value, tf_export

UNKNOWN_CARDINALITY = -2
INFINITE_CARDINALITY = -1
export_value(UNKNOWN_CARDINALITY, "data.UNKNOWN_CARDINALITY", "data.experimental.UNKNOWN_CARDINALITY")
export_value(INFINITE_CARDINALITY, "data.INFINITE_CARDINALITY", "data.experimental.INFINITE_CARDINALITY")


class _OptionsGroup:
    """Named options, each None until set, and nested groups; `_aliases` maps TF's older names."""

    _options: tuple[str, ...] = ()
    _groups: dict[str, type[_OptionsGroup]] = {}
    _aliases: dict[str, str] = {}

    def __init__(self) -> None:
        for name in self._options:
            object.__setattr__(self, name, None)
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
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return id(self)

    def _merged(self, other: _OptionsGroup) -> _OptionsGroup:
        merged = type(self)()
        for name in self._options:
            value = getattr(other, name)
            object.__setattr__(merged, name, getattr(self, name) if value is None else value)
        for name in self._groups:
            object.__setattr__(merged, name, getattr(self, name)._merged(getattr(other, name)))
        return merged


@tf_export("data.experimental.OptimizationOptions")
class OptimizationOptions(_OptionsGroup):
    """Which static optimizations of the input pipeline to apply."""

    _options = ("apply_default_optimizations", "filter_fusion", "filter_parallelization", "inject_prefetch",
                "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion", "map_parallelization",
                "noop_elimination", "parallel_batch", "seq_interleave_prefetch", "shuffle_and_repeat_fusion")


@tf_export("data.ThreadingOptions", "data.experimental.ThreadingOptions")
class ThreadingOptions(_OptionsGroup):
    """The threads a pipeline may use."""

    _options = ("max_intra_op_parallelism", "private_threadpool_size")


@tf_export("data.experimental.DistributeOptions")
class DistributeOptions(_OptionsGroup):
    """How a distributed strategy shards a dataset."""

    _options = ("auto_shard_policy", "num_devices")


@tf_export("data.Options")
class Options(_OptionsGroup):
    """The options of a dataset (`Dataset.with_options`, `Dataset.options()`)."""

    _options = ("autotune", "dataset_name", "deterministic", "experimental_external_state_policy",
                "experimental_service", "experimental_slack", "experimental_symbolic_checkpoint",
                "experimental_warm_start", "framework_type")
    _groups = {"experimental_optimization": OptimizationOptions, "threading": ThreadingOptions,
               "experimental_distribute": DistributeOptions}
    _aliases = {"experimental_deterministic": "deterministic", "experimental_threading": "threading"}

    def merge(self, options: Options) -> Options:
        """These options, overridden by every option set in `options`."""
        return self._merged(options)
