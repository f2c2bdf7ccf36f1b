"""`tf.profiler` (TF1's model analyzer): parameter counts, static float operations and, from a traced
step's RunMetadata, run times and memory, organised by name scope ('scope'), dataflow ('graph'), op type
('op') or Python call stack ('code'), printed as TF's tfprof report and returned as TF's GraphNodeProto /
MultiGraphNodeProto.

TF computes the report in C++ (tfprof) from the serialized graph, RunMetadata and an OpLogProto that its
Python side fills (trainable-variable types, flops from the registered statistics); here the same pipeline
runs in Python over our Graph: `_op_log` builds the OpLogProto as TF's tfprof_logger, `_Stats` holds each
graph node's numbers, the views select, account, filter, sort and format them as tfprof_scope/op/graph/code do.
The flops rules live in `flops_registry`.
"""

from __future__ import annotations

import copy
import os
import re
import sys
from collections.abc import Iterable
from typing import Any

from tensorweave import errors
from tensorweave.client import flops_registry
from tensorweave.formats import protos
from tensorweave.framework import graph as ops
from tensorweave.framework import tensor_shape
from tensorweave.platform import gfile
from tensorweave.platform.tf_export import export_value, tf_export

GraphNodeProto = protos.message_class("tensorflow.tfprof.GraphNodeProto")
MultiGraphNodeProto = protos.message_class("tensorflow.tfprof.MultiGraphNodeProto")
AdviceProto = protos.message_class("tensorflow.tfprof.AdviceProto")
OpLogProto = protos.message_class("tensorflow.tfprof.OpLogProto")
_OpLogEntry = protos.message_class("tensorflow.tfprof.OpLogEntry")
_ProfileProto = protos.message_class("tensorflow.tfprof.ProfileProto")
for _name, _cls in [("GraphNodeProto", GraphNodeProto), ("MultiGraphNodeProto", MultiGraphNodeProto),
                    ("AdviceProto", AdviceProto), ("OpLogProto", OpLogProto)]:
    export_value(_cls, f"profiler.{_name}")

TRAINABLE_VARIABLES = "_trainable_variables"
_ROOT = "_TFProfRoot"
_SCOPE_PARENT = "_kTFScopeParent"
_ALL_ADVICE = ("ExpensiveOperationChecker", "AcceleratorUtilizationChecker", "JobChecker", "OperationChecker")


def _preset(**changes: Any) -> dict[str, Any]:
    options = {"max_depth": 10000, "min_bytes": 0, "min_micros": 0, "min_params": 0, "min_float_ops": 0,
               "min_occurrence": 0, "order_by": "name", "account_type_regexes": [".*"],
               "start_name_regexes": [".*"], "trim_name_regexes": [], "show_name_regexes": [".*"],
               "hide_name_regexes": [], "account_displayed_op_only": True, "select": ["micros"], "step": -1,
               "output": "stdout"}
    options.update(changes)
    return options


@tf_export("profiler.ProfileOptionBuilder")
class ProfileOptionBuilder:
    """Builds the option dicts `profile` takes, from scratch or from a preset, as TF's builder (same keys,
    same defaults), so option dicts pass between the two unchanged."""

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        self._options = copy.deepcopy(options) if options is not None else _preset(
            max_depth=100, account_displayed_op_only=False)

    @staticmethod
    def trainable_variables_parameter() -> dict[str, Any]:
        """Count the parameters of trainable variables, by name scope."""
        return _preset(account_type_regexes=[TRAINABLE_VARIABLES], select=["params"])

    @staticmethod
    def float_operation() -> dict[str, Any]:
        """The static float operations of the ops that have them, most first."""
        return _preset(min_float_ops=1, order_by="float_ops", select=["float_ops"])

    @staticmethod
    def time_and_memory(min_micros: int = 1, min_bytes: int = 1, min_accelerator_micros: int = 0,
                        min_cpu_micros: int = 0, min_peak_bytes: int = 0, min_residual_bytes: int = 0,
                        min_output_bytes: int = 0) -> dict[str, Any]:
        """Run time and memory of the ops a traced step ran, slowest first."""
        options = _preset(order_by="micros", select=["micros", "bytes"])
        keys = list(options)
        options.update(min_bytes=min_bytes, min_peak_bytes=min_peak_bytes, min_residual_bytes=min_residual_bytes,
                       min_output_bytes=min_output_bytes, min_micros=min_micros,
                       min_accelerator_micros=min_accelerator_micros, min_cpu_micros=min_cpu_micros)
        at = keys.index("min_micros")
        order = keys[:2] + ["min_peak_bytes", "min_residual_bytes", "min_output_bytes"] + keys[2:at + 1] + [
            "min_accelerator_micros", "min_cpu_micros"] + keys[at + 1:]
        return {key: options[key] for key in order}

    def build(self) -> dict[str, Any]:
        """A copy of the options built so far."""
        return copy.deepcopy(self._options)

    def _set(self, **values: Any) -> ProfileOptionBuilder:
        self._options.update(values)
        return self

    def with_max_depth(self, max_depth: int) -> ProfileOptionBuilder:
        """Show nodes no deeper than this."""
        return self._set(max_depth=max_depth)

    def with_min_memory(self, min_bytes: int = 0, min_peak_bytes: int = 0, min_residual_bytes: int = 0,
                        min_output_bytes: int = 0) -> ProfileOptionBuilder:
        """Show nodes using at least this memory."""
        return self._set(min_bytes=min_bytes, min_peak_bytes=min_peak_bytes, min_residual_bytes=min_residual_bytes,
                         min_output_bytes=min_output_bytes)

    def with_min_execution_time(self, min_micros: int = 0, min_accelerator_micros: int = 0,
                                min_cpu_micros: int = 0) -> ProfileOptionBuilder:
        """Show nodes running at least this long."""
        return self._set(min_micros=min_micros, min_accelerator_micros=min_accelerator_micros,
                         min_cpu_micros=min_cpu_micros)

    def with_min_parameters(self, min_params: int) -> ProfileOptionBuilder:
        """Show nodes holding at least this many parameters."""
        return self._set(min_params=min_params)

    def with_min_occurrence(self, min_occurrence: int) -> ProfileOptionBuilder:
        """Show nodes run at least this often."""
        return self._set(min_occurrence=min_occurrence)

    def with_min_float_operations(self, min_float_ops: int) -> ProfileOptionBuilder:
        """Show nodes with at least this many float operations."""
        return self._set(min_float_ops=min_float_ops)

    def with_accounted_types(self, account_type_regexes: list[str]) -> ProfileOptionBuilder:
        """Account only nodes with a type (op type, device, op_log type) matching one of these."""
        return self._set(account_type_regexes=copy.copy(account_type_regexes))

    def with_node_names(self, start_name_regexes: list[str] | None = None, show_name_regexes: list[str] | None = None,
                        hide_name_regexes: list[str] | None = None,
                        trim_name_regexes: list[str] | None = None) -> ProfileOptionBuilder:
        """Where display starts, what it shows or hides, and where it stops descending."""
        for key, value in [("start_name_regexes", start_name_regexes), ("show_name_regexes", show_name_regexes),
                           ("hide_name_regexes", hide_name_regexes), ("trim_name_regexes", trim_name_regexes)]:
            if value is not None:
                self._options[key] = copy.copy(value)
        return self

    def account_displayed_op_only(self, is_true: bool) -> ProfileOptionBuilder:
        """Whether totals count only displayed nodes."""
        return self._set(account_displayed_op_only=is_true)

    def with_empty_output(self) -> ProfileOptionBuilder:
        """Print nothing; only the returned proto."""
        return self._set(output="none")

    def with_stdout_output(self) -> ProfileOptionBuilder:
        """Print the report."""
        return self._set(output="stdout")

    def with_file_output(self, outfile: str) -> ProfileOptionBuilder:
        """Write the report to a file."""
        return self._set(output=f"file:outfile={outfile}")

    def with_timeline_output(self, timeline_file: str) -> ProfileOptionBuilder:
        """Write a Chrome trace (TF's option; not written here)."""
        return self._set(output=f"timeline:outfile={timeline_file}")

    def with_pprof_output(self, pprof_file: str) -> ProfileOptionBuilder:
        """Write a pprof profile (TF's option, code view only)."""
        return self._set(output=f"pprof:outfile={pprof_file}")

    def order_by(self, attribute: str) -> ProfileOptionBuilder:
        """Sort siblings by this attribute."""
        return self._set(order_by=attribute)

    def select(self, attributes: list[str]) -> ProfileOptionBuilder:
        """The attributes the report shows."""
        return self._set(select=copy.copy(attributes))

    def with_step(self, step: int) -> ProfileOptionBuilder:
        """Which added step's statistics to use (-1: the average)."""
        return self._set(step=step)


# ----------------------------------------------------------------------------------------------- op log

def _fill_missing_graph_shape(graph: Any, run_meta: Any) -> None:
    """Refine the graph's static shapes with the shapes a traced step produced, as TF's logger does."""
    for dev_stat in run_meta.step_stats.dev_stats:
        for node_stat in dev_stat.node_stats:
            if not node_stat.output:
                continue
            try:
                op = graph.get_operation_by_name(node_stat.node_name)
            except (KeyError, ValueError):
                continue
            if len(node_stat.output) != len(op.outputs):
                continue
            for i, out in enumerate(node_stat.output):
                if op.outputs[i].get_shape().is_fully_defined():
                    continue
                shape = tensor_shape.TensorShape([d.size for d in out.tensor_description.shape.dim])
                try:
                    op.outputs[i].set_shape(op.outputs[i].get_shape().merge_with(shape))
                except ValueError as e:
                    sys.stderr.write(f"Node {node_stat.node_name} incompatible shapes: {e}.\n")


def _str_id(s: str, ids: dict[str, int]) -> int:
    return ids.setdefault(s, len(ids))


def _merge_default_with_oplog(graph: Any, op_log: Any = None, run_meta: Any = None, add_trace: bool = True) -> Any:
    """TF's OpLogProto for a graph: each op's static flops, its Python trace, `_trainable_variables` on the
    trainable variables, merged into a user's op_log."""
    if run_meta:
        _fill_missing_graph_shape(graph, run_meta)
    missing = 0
    logged: dict[str, Any] = {}
    ids = {"none": 0}
    for op in graph.get_operations():
        try:
            flops = flops_registry.float_ops(op)
        except ValueError:
            missing += 1
            flops = None
        entry = _OpLogEntry(name=op.name)
        add = False
        if flops:
            entry.float_ops = flops
            add = True
        if add_trace:
            for filename, lineno, funcname, line in op.traceback:
                trace = entry.code_def.traces.add()
                trace.file_id = _str_id(filename, ids) if filename else 0
                trace.lineno = lineno if lineno else -1
                trace.function_id = _str_id(funcname, ids) if funcname else 0
                trace.line_id = _str_id(line, ids) if line else 0
                trace.func_start_line = -1
            add = True
        if add:
            logged[entry.name] = entry
    for v in graph.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES):
        logged.setdefault(v.op.name, _OpLogEntry(name=v.op.name)).types.append(TRAINABLE_VARIABLES)
    if missing and not run_meta:
        sys.stderr.write(f"{missing} ops no flops stats due to incomplete shapes.\n")
    merged = OpLogProto()
    if op_log:
        entries = {entry.name: entry for entry in op_log.log_entries}
        for name, entry in logged.items():
            if name not in entries:
                entries[name] = entry
                continue
            mine = entries[name]
            mine.types.extend(entry.types)
            if entry.float_ops > 0 and mine.float_ops == 0:
                mine.float_ops = entry.float_ops
            if entry.code_def.traces and not mine.code_def.traces:
                mine.code_def.MergeFrom(entry.code_def)
        logged = entries
    merged.log_entries.extend(logged.values())
    for s, i in ids.items():
        merged.id_to_string[i] = s
    return merged


@tf_export("profiler.write_op_log")
def write_op_log(graph: Any, log_dir: str, op_log: Any = None, run_meta: Any = None, add_trace: bool = True) -> None:
    """Write the graph's OpLogProto (flops, types, traces) to `log_dir/tfprof_log` for offline tfprof."""
    graph = graph or ops.get_default_graph()
    op_log = _merge_default_with_oplog(graph, op_log, run_meta, add_trace)
    with gfile.GFile(os.path.join(log_dir, "tfprof_log"), "wb") as f:
        f.write(op_log.SerializeToString())


# ------------------------------------------------------------------------------------------ statistics

_SELF = ("run_count", "exec_micros", "accelerator_exec_micros", "cpu_exec_micros", "requested_bytes",
         "peak_bytes", "residual_bytes", "output_bytes", "parameters", "float_ops")


class _Stats:
    """One graph node as tfprof sees it: its types, static shape, parameters, flops and run statistics."""

    def __init__(self, name: str, op_type: str, shape: list[int] | None = None) -> None:
        self.name = name
        self.op = op_type
        self.op_types = {op_type}
        self.shape = shape or []
        self.float_ops = 0
        self.devices: list[str] = []
        self.input_shapes: list[list[int] | None] = []  # data inputs, then control inputs (always unknown)
        self.trace: list[str] = []  # the creating Python frames, outermost first, as the code view names them
        self.runs: dict[int, dict[str, int]] = {}  # step -> run statistics

    @property
    def parameters(self) -> int:
        if not self.shape:
            return 0
        if any(d < 0 for d in self.shape):
            return 0
        count = 1
        for d in self.shape:
            count *= d
        return count

    def fill(self, proto: Any, step: int) -> None:
        """The node's own numbers into a GraphNodeProto/MultiGraphNodeProto (TF's ReInit)."""
        if step in self.runs:
            run = self.runs[step]
        elif self.runs and step < 0:
            run = {k: sum(r[k] for r in self.runs.values()) // len(self.runs) for k in next(iter(self.runs.values()))}
        else:
            run = {}
        proto.name = self.name
        for key in _SELF[:-2]:
            setattr(proto, key, run.get(key, 0))
        proto.parameters = self.parameters
        proto.float_ops = self.float_ops * (run.get("run_count", 0) if self.runs else 1)
        if "devices" in proto.DESCRIPTOR.fields_by_name:
            del proto.devices[:]
            proto.devices.extend(self.devices[:1])
            proto.input_shapes.clear()
            for i, dims in enumerate(self.input_shapes):
                shape = proto.input_shapes[i]
                if dims is None:
                    shape.unknown_rank = True
                for d in dims or ():
                    shape.dim.add(size=d)


def _dims(shape: Any) -> list[int] | None:
    """tfprof's shape vector: None for an unknown rank, -1 for an unknown dimension, [1] for a scalar."""
    if shape.ndims is None:
        return None
    return [-1 if d is None else d for d in shape.as_list()] or [1]


def _trace_name(filename: str, lineno: int, function: str) -> str:
    """A code-view node's name: file basename, line and function (long names cut to 17 characters + ...)."""
    function = function if len(function) < 20 else function[:17] + "..."
    return f"{os.path.basename(filename)}:{lineno}:{function}"


def _shape_attr(op: Any) -> list[int] | None:
    if "shape" not in op.node_def.attr:
        return None
    try:
        return _dims(tensor_shape.as_shape(op.get_attr("shape")))
    except (TypeError, ValueError):
        return None


def _collect(graph: Any, op_log: Any, run_metas: dict[int, Any]) -> list[_Stats]:
    nodes: dict[str, _Stats] = {}
    for op in graph.get_operations():
        node = nodes[op.name] = _Stats(op.name, op.type, _shape_attr(op))
        node.input_shapes = [_dims(t.shape) for t in op.inputs] + [None] * len(op.control_inputs)
        node.trace = [_trace_name(f, n, fn) for f, n, fn, _ in op.traceback]
    for entry in op_log.log_entries:
        node = nodes.get(entry.name)
        if node is not None:
            node.float_ops = entry.float_ops
            node.op_types.update(entry.types)
    for step, run_meta in run_metas.items():
        for dev in run_meta.step_stats.dev_stats:
            for ns in dev.node_stats:
                node = nodes.get(ns.node_name.split(":")[0])
                if node is None:
                    continue
                device = dev.device.lower()  # tfprof's canonical device names are lower case
                if device not in node.devices:
                    node.devices.append(device)
                    node.op_types.add(device)
                run = node.runs.setdefault(step, dict.fromkeys(_SELF[:-2], 0))
                micros = max(ns.op_end_rel_micros - ns.op_start_rel_micros, ns.all_end_rel_micros, 0)
                out_bytes = sum(o.tensor_description.allocation_description.allocated_bytes for o in ns.output)
                requested = sum(m.total_bytes for m in ns.memory) or out_bytes
                run["run_count"] += 1
                run["exec_micros"] += micros
                run["cpu_exec_micros"] += micros
                run["requested_bytes"] += requested
                run["peak_bytes"] += sum(m.peak_bytes for m in ns.memory) or requested
                run["residual_bytes"] += sum(m.live_bytes for m in ns.memory)
                run["output_bytes"] += out_bytes
    return list(nodes.values())


# ---------------------------------------------------------------------------------------------- options

class _Options:
    def __init__(self, options: dict[str, Any]) -> None:
        get = options.get
        self.max_depth = get("max_depth", 10)
        self.mins = {key: get(key, 0) for key in (
            "min_bytes", "min_peak_bytes", "min_residual_bytes", "min_output_bytes", "min_micros",
            "min_accelerator_micros", "min_cpu_micros", "min_params", "min_float_ops", "min_occurrence")}
        self.step = get("step", -1)
        self.order_by = get("order_by", "name")
        self.account = list(get("account_type_regexes", []))
        self.start = list(get("start_name_regexes", []))
        self.trim = list(get("trim_name_regexes", []))
        self.show = list(get("show_name_regexes", []))
        self.hide = list(get("hide_name_regexes", []))
        self.displayed_only = bool(get("account_displayed_op_only", False))
        self.select = sorted(set(get("select", [])))
        output = get("output", "stdout")
        self.output_type, _, rest = output.partition(":")
        self.output_options = dict(kv.split("=", 1) for kv in rest.split(",") if "=" in kv)

    def __str__(self) -> str:
        rows = [("max_depth", self.max_depth), *self.mins.items(), ("step", self.step), ("order_by", self.order_by),
                ("account_type_regexes", ",".join(self.account)), ("start_name_regexes", ",".join(self.start)),
                ("trim_name_regexes", ",".join(self.trim)), ("show_name_regexes", ",".join(self.show)),
                ("hide_name_regexes", ",".join(self.hide)),
                ("account_displayed_op_only", "true" if self.displayed_only else "false"),
                ("select", ",".join(self.select)),
                ("output", self.output_type + ":" + ",".join(f"{k}={v}" for k, v in self.output_options.items()))]
        rows.insert(6, rows.pop(6))
        return "".join(f"{'-' + key:<28}{value}\n" for key, value in rows)


def _full_match(regexes: Iterable[str], name: str) -> bool:
    return any(re.fullmatch(regex, name) for regex in regexes)


def format_number(n: int) -> str:
    """tfprof's number format: 999, 1.00k, 2.50m, 1.20b."""
    for scale, suffix in ((1e9, "b"), (1e6, "m"), (1e3, "k")):
        if n >= scale:
            return f"{n / scale:.2f}{suffix}"
    return str(n)


def format_time(micros: int) -> str:
    """tfprof's time format: 999us, 1.50ms, 2.00sec."""
    if micros < 1000:
        return f"{micros}us"
    if micros < 1000000:
        return f"{micros / 1000:.2f}ms"
    return f"{micros / 1000000:.2f}sec"


def format_memory(nbytes: int) -> str:
    """tfprof's memory format: 999B, 1.50KB, 2.00MB."""
    if nbytes < 1000:
        return f"{nbytes}B"
    if nbytes < 1000000:
        return f"{nbytes / 1000:.2f}KB"
    return f"{nbytes / 1000000:.2f}MB"


_DOC_SELECT = {
    "bytes": "requested bytes: The memory requested by the operation, accumulatively.",
    "micros": "total execution time: Sum of accelerator execution time and cpu execution time.\n"
              "cpu execution time: The time from the start to the end of the operation. It's the sum of actual cpu "
              "run time plus the time that it spends waiting if part of computation is launched asynchronously.\n"
              "accelerator execution time: Time spent executing on the accelerator. This is normally measured by "
              "the actual hardware library.",
    "params": "param: Number of parameters (in the Variable).",
    "float_ops": "flops: Number of float operations. Note: Please read the implementation for the math behind it.",
    "tensor_value": "tensor_value: Not supported now.",
    "device": "device: which device is placed on.",
    "op_types": "op_types: The attributes of the operation, includes the Kernel name device placed on and "
                "user-defined strings.",
    "occurrence": "occurrence: The number of times it occurs",
    "input_shapes": "input shape: The shape of input tensors",
    "accelerator_micros": "accelerator execution time: Time spent executing on the accelerator. This is normally "
                          "measured by the actual hardware library.",
    "cpu_micros": "cpu execution time: The time from the start to the end of the operation. It's the sum of actual "
                  "cpu run time plus the time that it spends waiting if part of computation is launched "
                  "asynchronously.",
    "peak_bytes": "peak bytes: The peak amount of memory that the operation is holding at some point.",
    "residual_bytes": "residual bytes: The memory not de-allocated after the operation finishes.",
    "output_bytes": "output bytes: The memory that is output from the operation (not necessarilty allocated by "
                    "the operation)",
}
_DOC_CMD = {
    "scope": "scope: The nodes in the model graph are organized by their names, which is hierarchical like "
             "filesystem.",
    "code": "code: When python trace is available, the nodes are python lines and their are organized by the "
            "python call stack.",
    "op": "op: The nodes are operation kernel type, such as MatMul, Conv2D. Graph nodes belonging to the same "
          "type are aggregated together.",
}
_DOC_CMD["graph"] = _DOC_CMD["scope"]
_LEGEND = [("params", "# parameters"), ("float_ops", "# float_ops"), ("bytes", "requested bytes"),
           ("peak_bytes", "peak bytes"), ("residual_bytes", "residual bytes"), ("output_bytes", "output bytes")]


def _doc(cmd: str, opts: _Options) -> str:
    helps = [_DOC_SELECT.get(s, "Unknown select: " + s) for s in opts.select]
    return "\nDoc:\n" + _DOC_CMD[cmd] + "\n" + "\n".join(helps) + "\n\n"


def _legend(opts: _Options, multi: bool = False) -> str:
    """The column names; the op view puts memory and time before parameters and flops."""
    sel = set(opts.select)
    counts = [text for key, text in _LEGEND[:2] if key in sel]
    legends = [] if multi else counts
    legends += [text for key, text in _LEGEND[2:] if key in sel]
    if "micros" in sel:
        legends += ["total execution time", "accelerator execution time", "cpu execution time"]
    else:
        legends += [text for key, text in (("accelerator_micros", "accelerator execution time"),
                                           ("cpu_micros", "cpu execution time")) if key in sel]
    if multi:
        legends += counts
    occurrence = "op occurrence (run|defined)" if multi else "op count (run|defined)"
    legends += [text for key, text in (("device", "assigned devices"), ("op_types", "op types"),
                                       ("occurrence", occurrence), ("input_shapes", "input shapes"))
                if key in sel]
    return "node name | " + " | ".join(legends) + "\n"


_TOTALS = [(f, "total_" + f) for f in ("run_count", "exec_micros", "accelerator_exec_micros", "cpu_exec_micros",
                                       "requested_bytes", "peak_bytes", "residual_bytes", "output_bytes",
                                       "parameters", "float_ops")]
_SORT_KEY = {"bytes": "total_requested_bytes", "peak_bytes": "total_peak_bytes",
             "residual_bytes": "total_residual_bytes", "output_bytes": "total_output_bytes",
             "micros": "total_exec_micros", "accelerator_micros": "total_accelerator_exec_micros",
             "cpu_micros": "total_cpu_exec_micros", "params": "total_parameters", "float_ops": "total_float_ops"}


class _ShowNode:
    """A node of a view (a graph node, a scope parent, an op type) with its proto and display state."""

    def __init__(self, stats: _Stats, proto_cls: Any = GraphNodeProto) -> None:
        self.stats = stats
        self.proto = proto_cls(name=stats.name)
        self.children: list[_ShowNode] = []
        self.show_children: list[_ShowNode] = []
        self.account = False
        self.formatted = ""
        self._multi = proto_cls is MultiGraphNodeProto
        self.members: list[_Stats] = []  # the op view's graph nodes of this type
        fields = proto_cls.DESCRIPTOR.fields_by_name
        self._totals = [(own, total) for own, total in _TOTALS if total in fields]

    @property
    def name(self) -> str:
        return self.stats.name

    def reset_totals(self) -> None:
        for _, total in self._totals:
            setattr(self.proto, total, 0)
        if not self._multi:
            self.proto.total_definition_count = 0

    def add_self_to_totals(self) -> None:
        if not self._multi:
            self.proto.total_definition_count += 1
        for own, total in self._totals:
            setattr(self.proto, total, getattr(self.proto, total) + getattr(self.proto, own))

    def aggregate(self, other: _ShowNode) -> None:
        if not self._multi:
            self.proto.total_definition_count += other.proto.total_definition_count
        for _, total in self._totals:
            setattr(self.proto, total, getattr(self.proto, total) + getattr(other.proto, total))


def _sort(nodes: list[Any], opts: _Options) -> list[Any]:
    if not nodes:
        return nodes
    key = _SORT_KEY.get(opts.order_by)
    if key is None:  # name; 'occurrence' falls back to it as in TF
        return sorted(nodes, key=lambda n: (n.name != _ROOT, n.name))
    return sorted(nodes, key=lambda n: (n.name != _ROOT, -getattr(n.proto, key)))


def _re_account(node: _ShowNode, opts: _Options) -> bool:
    node.stats.fill(node.proto, opts.step)
    if opts.account == [".*"]:
        return True
    return any(_full_match(opts.account, t) for t in node.stats.op_types)


def _should_show(node: _ShowNode, opts: _Options, depth: int) -> bool:
    """TF's ShouldShow; multi-graph nodes (op and code views) are filtered on their totals, without the
    occurrence test."""
    if node.name == _ROOT:
        return True
    p, m = node.proto, opts.mins
    params, flops = (p.total_parameters, p.total_float_ops) if node._multi else (p.parameters, p.float_ops)
    if (p.total_requested_bytes < m["min_bytes"] or p.total_peak_bytes < m["min_peak_bytes"]
            or p.total_residual_bytes < m["min_residual_bytes"] or p.total_output_bytes < m["min_output_bytes"]
            or p.total_exec_micros < m["min_micros"] or p.total_accelerator_exec_micros < m["min_accelerator_micros"]
            or p.total_cpu_exec_micros < m["min_cpu_micros"] or params < m["min_params"]
            or flops < m["min_float_ops"] or (not node._multi and p.run_count < m["min_occurrence"])
            or depth > opts.max_depth):
        return False
    if opts.show != [".*"] and not _full_match(opts.show, node.name):
        return False
    return not _full_match(opts.hide, node.name)


def _pair(node: _ShowNode, own: str, total: str, fmt: Any) -> str:
    value = fmt(getattr(node.proto, total))
    return f"{fmt(getattr(node.proto, own))}/{value}" if node.account else f"--/{value}"


def _format_node(node: _ShowNode, opts: _Options) -> str:
    sel = set(opts.select)
    info = []
    if "params" in sel:
        shape = "x".join(str(d) for d in node.stats.shape)
        if shape:
            info.append(shape)
        info.append(_pair(node, "parameters", "total_parameters", format_number) + " params")
    if "float_ops" in sel:
        info.append(_pair(node, "float_ops", "total_float_ops", format_number) + " flops")
    for key, field in (("bytes", "requested_bytes"), ("peak_bytes", "peak_bytes"),
                       ("residual_bytes", "residual_bytes"), ("output_bytes", "output_bytes")):
        if key in sel:
            info.append(_pair(node, field, "total_" + field, format_memory))
    times = [("exec_micros", "micros"), ("accelerator_exec_micros", "accelerator_micros"),
             ("cpu_exec_micros", "cpu_micros")]
    for field, key in times:
        if "micros" in sel or (key in sel and key != "micros"):
            info.append(_pair(node, field, "total_" + field, format_time))
    if "device" in sel and node.proto.devices:
        info.append("|".join(node.proto.devices))
    if "op_types" in sel:
        info.append("|".join(sorted(node.stats.op_types)))
    if "occurrence" in sel:
        run = _pair(node, "run_count", "total_run_count", format_number)
        definition = format_number(node.proto.total_definition_count)
        info.append(run + "|" + ("1/" if node.account else "--/") + definition)
    if "input_shapes" in sel:
        info.append("|".join(_format_input(i, dims) for i, dims in enumerate(node.stats.input_shapes)))
    return f"{node.name} ({', '.join(info)})"


def _format_input(index: int, dims: list[int] | None) -> str:
    return f"{index}:" + ("unknown" if not dims else "x".join(map(str, dims)))


def _format_input_types(proto: Any, graph_nodes: list[_Stats]) -> str:
    """The op view's input-shape lines: each distinct input signature with its run and definition counts."""
    kinds: dict[str, list[int]] = {}
    for gnode, stats in zip(proto.graph_nodes, graph_nodes):
        key = "input_type: " + ",\t".join(_format_input(i, d) for i, d in enumerate(stats.input_shapes))
        count = kinds.setdefault(key, [0, 0, 0])
        count[0] += 1
        count[1] += gnode.run_count
        count[2] += gnode.exec_micros
    rows = sorted(kinds.items(), key=lambda kv: -kv[1][1])
    return "\n".join(f"{key}\t(run*{runs}|defined*{defined})\texec_time: {format_time(micros)}"
                     for key, (defined, runs, micros) in rows)


class _TreeView:
    """The scope and graph views: TF's tfprof_scope (a tree of name scopes) and tfprof_graph (a tree of
    inputs), which account, filter and format alike."""

    def __init__(self, root: _ShowNode, roots: list[_ShowNode]) -> None:
        self.root = root
        self.root.children = roots

    def _account(self, nodes: list[_ShowNode], opts: _Options, seen: set[int]) -> list[_ShowNode]:
        accounted = []
        for node in nodes:
            node.reset_totals()
            children = self._account(node.children, opts, seen)
            node.account = self._re_account(node, opts)
            if node.account or children:
                node.show_children = []
                node.reset_totals()
                node.add_self_to_totals()
                for child in children:
                    node.aggregate(child)
                    node.show_children.append(child)
                accounted.append(node)
        return accounted

    def _search_root(self, nodes: list[_ShowNode], regexes: list[str]) -> list[_ShowNode]:
        found = []
        for node in nodes:
            if _full_match(regexes, node.name):
                found.append(node)
            else:
                found += self._search_root(node.show_children, regexes)
        return found

    def _first_visit(self, node: _ShowNode, seen: set[int]) -> bool:
        return True

    def _re_account(self, node: _ShowNode, opts: _Options) -> bool:
        return _re_account(node, opts)

    def _print(self, nodes: list[_ShowNode], opts: _Options, depth: int, last_ident: int,
               seen: set[int]) -> list[_ShowNode]:
        shown = []
        for node in nodes:
            if not self._first_visit(node, seen):
                continue
            ident = last_ident
            show = _should_show(node, opts, depth)
            if show:
                ident += 2
            children: list[_ShowNode] = []
            if not _full_match(opts.trim, node.name) and depth <= opts.max_depth:
                children = self._print(node.show_children, opts, depth + 1, ident, seen)
            if show:
                node.show_children = []
                if opts.displayed_only:
                    node.reset_totals()
                    node.add_self_to_totals()
                for child in _sort(children, opts):
                    node.show_children.append(child)
                    if opts.displayed_only:
                        node.aggregate(child)
                node.formatted = " " * last_ident + _format_node(node, opts) + "\n"
                shown.append(node)
            else:
                shown += children
        return shown

    def show(self, opts: _Options) -> tuple[Any, str]:
        root = self.root
        root.reset_totals()
        roots = self._account(root.children, opts, set())
        root.show_children = []
        for node in roots:
            root.aggregate(node)
        if opts.start != [".*"]:
            roots = self._search_root(roots, opts.start)
        root.show_children = roots
        root = self._print([root], opts, 1, 0, set())[0]
        text = [_legend(opts, multi=root._multi) + root.formatted]
        self._format(root.show_children, text, root.proto)
        return root.proto, "".join(text)

    def _format(self, nodes: list[_ShowNode], text: list[str], proto: Any) -> None:
        for node in nodes:
            text.append(node.formatted)
            child = proto.children.add()
            child.MergeFrom(node.proto)
            del child.children[:]
            self._format(node.show_children, text, child)


class _CodeView(_TreeView):
    """TF's code view: a tree of Python call stacks; each frame node aggregates the ops created there (those
    whose types are accounted), as a MultiGraphNodeProto."""

    def _re_account(self, node: _ShowNode, opts: _Options) -> bool:
        members = [s for s in node.members
                   if opts.account == [".*"] or any(_full_match(opts.account, t) for t in s.op_types)]
        proto = node.proto
        proto.name = node.name
        del proto.graph_nodes[:]
        for own in _SELF[1:]:
            setattr(proto, own, 0)
        for s in members:
            g = proto.graph_nodes.add()
            s.fill(g, opts.step)
            for own in _SELF[1:]:
                setattr(proto, own, getattr(proto, own) + getattr(g, own))
        return opts.account == [".*"] or bool(members)


def _code_view(stats: list[_Stats]) -> _TreeView:
    root = _ShowNode(_Stats(_ROOT, _SCOPE_PARENT), MultiGraphNodeProto)
    nodes: dict[tuple[str, ...], _ShowNode] = {}
    for s in stats:
        parent = root
        for depth in range(1, len(s.trace) + 1):
            path = tuple(s.trace[:depth])
            node = nodes.get(path)
            if node is None:
                node = nodes[path] = _ShowNode(_Stats(path[-1], _SCOPE_PARENT), MultiGraphNodeProto)
                parent.children.append(node)
            parent = node
        if s.trace:
            parent.members.append(s)
    view = _CodeView(root, root.children)
    return view


def _scope_view(stats: list[_Stats]) -> _TreeView:
    nodes = {s.name: _ShowNode(s) for s in stats}
    for s in stats:
        name = s.name
        while "/" in name:
            name = name.rsplit("/", 1)[0]
            if name not in nodes:
                nodes[name] = _ShowNode(_Stats(name, _SCOPE_PARENT))
    roots = []
    for name in sorted(nodes):
        if "/" in name:
            nodes[name.rsplit("/", 1)[0]].children.append(nodes[name])
        else:
            roots.append(nodes[name])
    return _TreeView(_ShowNode(_Stats(_ROOT, _SCOPE_PARENT)), roots)


class _GraphView(_TreeView):
    """TF's tfprof_graph: each node's children are its inputs, visited once; an unaccounted node hands its
    accounted inputs to its consumer."""

    def _account(self, nodes: list[_ShowNode], opts: _Options, seen: set[int]) -> list[_ShowNode]:
        accounted = []
        for node in nodes:
            if id(node) in seen:
                continue
            seen.add(id(node))
            children = self._account(node.children, opts, seen)
            node.account = _re_account(node, opts)
            if node.account:
                node.show_children = []
                node.reset_totals()
                node.add_self_to_totals()
                for child in children:
                    node.aggregate(child)
                    node.show_children.append(child)
                accounted.append(node)
            else:
                accounted += children
        return accounted

    def _search_root(self, nodes: list[_ShowNode], regexes: list[str], seen: set[int] | None = None) -> list[_ShowNode]:
        seen = set() if seen is None else seen
        found = []
        for node in nodes:
            if id(node) in seen:
                continue
            seen.add(id(node))
            if _full_match(regexes, node.name):
                found.append(node)
            else:
                found += self._search_root(node.show_children, regexes, seen)
        return found

    def _first_visit(self, node: _ShowNode, seen: set[int]) -> bool:
        if id(node) in seen:
            return False
        seen.add(id(node))
        return True


def _graph_view(stats: list[_Stats], graph: Any) -> _TreeView:
    """Each node's children are its inputs (data, then control, in order); the roots are the nodes that no
    node takes as an input."""
    nodes = {s.name: _ShowNode(s) for s in stats}
    consumed = set()
    for op in graph.get_operations():
        for name in [t.op.name for t in op.inputs] + [c.name for c in op.control_inputs]:
            consumed.add(name)
            nodes[op.name].children.append(nodes[name])
    roots = [nodes[n] for n in sorted(nodes) if n not in consumed]
    return _GraphView(_ShowNode(_Stats(_ROOT, "_TFGraphParent")), roots)


def _op_view(stats: list[_Stats], opts: _Options) -> tuple[Any, str]:
    """TF's tfprof_op: one MultiGraphNodeProto per op type holding its accounted graph nodes, chained."""
    by_type: dict[str, list[_Stats]] = {}
    for s in stats:
        by_type.setdefault(s.op, []).append(s)
    root = _ShowNode(_Stats(_ROOT, _SCOPE_PARENT), MultiGraphNodeProto)
    nodes = []
    for op_type in sorted(by_type):
        node = _ShowNode(_Stats(op_type, op_type), MultiGraphNodeProto)
        members = [s for s in by_type[op_type]
                   if opts.account == [".*"] or any(_full_match(opts.account, t) for t in s.op_types)]
        node.account = bool(members)
        node.members = members
        for s in members:
            g = node.proto.graph_nodes.add()
            s.fill(g, opts.step)
            g.total_definition_count = 1
            for own in _SELF[1:]:
                setattr(node.proto, own, getattr(node.proto, own) + getattr(g, own))
            for own, total in _TOTALS:
                setattr(g, total, getattr(g, own))
        node.stats.op_types = set().union(*(s.op_types for s in by_type[op_type]))
        node.reset_totals()
        node.add_self_to_totals()
        nodes.append(node)
    nodes = _sort(nodes, opts)
    accounted: list[_ShowNode] = []
    previous = None
    for node in reversed(nodes):
        if node.account:
            if previous is not None:
                node.aggregate(previous)
            accounted.append(node)
            previous = node
    accounted.reverse()
    if previous is not None:
        root.aggregate(previous)
    start = 0
    if opts.start and opts.start != [".*"]:
        start = next((i for i, n in enumerate(accounted) if _full_match(opts.start, n.name)), len(accounted))
    shown = []
    for depth, node in enumerate(accounted[start:]):
        if _full_match(opts.trim, node.name) or depth > opts.max_depth:
            break
        if _should_show(node, opts, depth):
            shown.append(node)
    previous = None
    for node in reversed(shown):
        if opts.displayed_only:
            node.reset_totals()
            node.add_self_to_totals()
            if previous is not None:
                node.aggregate(previous)
        previous = node
    if opts.displayed_only:
        root.reset_totals()
        if previous is not None:
            root.aggregate(previous)
    text = _legend(opts, multi=True) + "".join(_format_multi(node, root, opts) for node in shown)
    proto = root.proto
    tail = proto
    for node in shown:
        child = tail.children.add()
        child.MergeFrom(node.proto)
        tail = child
    return proto, text


def _format_multi(node: _ShowNode, root: _ShowNode, opts: _Options) -> str:
    sel = set(opts.select)
    p, r = node.proto, root.proto

    def column(own: str, total: str, text: str) -> str:
        accu = pct = 0.0
        gate = getattr(p, own) if own.endswith("bytes") else getattr(p, total)
        if gate > 0:
            accu = 100.0 * getattr(p, total) / getattr(r, total)
            pct = 100.0 * getattr(p, own) / getattr(r, total)
        return f"{text} ({accu:.2f}%, {pct:.2f}%)".rjust(30)

    attrs = []
    for key, field in (("bytes", "requested_bytes"), ("peak_bytes", "peak_bytes"),
                       ("residual_bytes", "residual_bytes"), ("output_bytes", "output_bytes")):
        if key in sel:
            attrs.append(column(field, "total_" + field, format_memory(getattr(p, field))))
    for field, key in (("exec_micros", "micros"), ("accelerator_exec_micros", "accelerator_micros"),
                       ("cpu_exec_micros", "cpu_micros")):
        if "micros" in sel or (key in sel and key != "micros"):
            attrs.append(column(field, "total_" + field, format_time(getattr(p, field))))
    if "params" in sel:
        attrs.append(column("parameters", "total_parameters", format_number(p.parameters) + " params"))
    if "float_ops" in sel:
        attrs.append(column("float_ops", "total_float_ops", format_number(p.float_ops) + " float_ops"))
    if "op_types" in sel:
        attrs.append("|".join(sorted(node.stats.op_types)))
    if "occurrence" in sel:
        runs = sum(g.run_count for g in p.graph_nodes)
        attrs.append(f"{runs}|{len(p.graph_nodes)}".rjust(10))
    text = f"{node.name:<25}{', '.join(attrs)}\n"
    if "input_shapes" in sel:
        shapes = _format_input_types(p, node.members)
        if shapes:
            text = f"{text}\n{shapes}\n\n"
    return text


_OPTIONS_HEAD = "\n=========================Options=============================\n"
_REPORT_HEAD = "\n==================Model Analysis Report======================\n"
_REPORT_TAIL = "\n======================End of Report==========================\n"


def _analyze(graph: Any, op_log: Any, run_metas: dict[int, Any], cmd: str, options: dict[str, Any]) -> Any:
    opts = _Options(options)
    stats = _collect(graph, op_log, run_metas)
    if cmd == "op":
        proto, text = _op_view(stats, opts)
    else:
        views = {"scope": _scope_view, "code": _code_view}
        view = views[cmd](stats) if cmd in views else _graph_view(stats, graph)
        proto, text = view.show(opts)
    report = _doc(cmd, opts) + "Profile:\n" + text
    if opts.output_type == "stdout":
        sys.stdout.write(_OPTIONS_HEAD + str(opts) + _REPORT_HEAD + report + _REPORT_TAIL)
        sys.stdout.flush()
    elif opts.output_type == "file":
        with gfile.GFile(opts.output_options["outfile"], "w") as f:
            f.write(report)
    elif opts.output_type not in ("none", "timeline", "pprof"):
        sys.stderr.write(f"Unknown output type: {opts.output_type}\n")
    return proto


@tf_export("profiler.profile")
def profile(graph: Any = None, run_meta: Any = None, op_log: Any = None, cmd: str = "scope",
            options: Any = 0) -> Any:
    """Profile a model: 'scope' and 'graph' return a GraphNodeProto, 'op' and 'code' a MultiGraphNodeProto
    (the code view's frames are the user's: TF's own internal frames are not there to show). Prints TF's
    report as options['output'] says; the default options count trainable parameters."""
    graph = graph or ops.get_default_graph()
    if options == 0:
        options = ProfileOptionBuilder.trainable_variables_parameter()
    op_log = _merge_default_with_oplog(graph, op_log, run_meta, add_trace=cmd == "code")
    if cmd not in ("scope", "graph", "op", "code"):
        raise errors.InvalidArgumentError(None, None, f"unknown cmd: {cmd}\n")
    return _analyze(graph, op_log, {0: run_meta} if run_meta else {}, cmd, options)


def _expensive_operations(graph: Any, op_log: Any, run_metas: dict[int, Any]) -> list[str]:
    """TF's ExpensiveOperationChecker: the three slowest op types, then the slowest top-level graph nodes
    (its code-view report needs the code view, not built here)."""
    if not run_metas:
        sys.stderr.write("Missing RunMetadata info. Skip ExpensiveOperationChecker\n")
        sys.stderr.write("Missing run_meta for ExpensiveOperationChecker\n")
    reports = []
    common = {"min_bytes": 0, "min_float_ops": 0, "order_by": "micros", "account_type_regexes": [".*"],
              "start_name_regexes": [".*"], "show_name_regexes": [".*"], "account_displayed_op_only": False,
              "output": "none"}
    if run_metas:
        root = _analyze(graph, op_log, run_metas, "op", {**common, "max_depth": 3, "min_micros": 1,
                                                         "select": ["micros", "occurrence"]})
        node, lines = root, []
        for i in range(3):
            if not node.children:
                break
            node = node.children[0]
            share = 100.0 * node.exec_micros / (root.total_exec_micros + 1e-10)
            lines.append(f"top {i + 1} operation type: {node.name}, cpu: {format_time(node.cpu_exec_micros)}, "
                         f"accelerator: {format_time(node.accelerator_exec_micros)}, "
                         f"total: {format_time(node.exec_micros)} ({share:.2f}%)")
        if lines:
            reports.append("\n".join(lines))
    root = _analyze(graph, op_log, run_metas, "scope", {**common, "max_depth": 100, "min_micros": 100,
                                                        "select": ["micros"]})
    if root.children:
        reports.append("\n".join(
            f"top {i + 1} graph node: {n.name}, cpu: {format_time(n.cpu_exec_micros)}, "
            f"accelerator: {format_time(n.accelerator_exec_micros)}, total: {format_time(n.exec_micros)}"
            for i, n in enumerate(root.children[:3])))
    return reports


def _advise(graph: Any, op_log: Any, run_metas: dict[int, Any], options: Any) -> Any:
    """TF's advisor: an AdviceProto entry per checker asked for (JobChecker exists only inside Google),
    printed as TF prints it. The Operation and AcceleratorUtilization checkers only report on NCHW/GPU
    specifics, which a CPU graph does not trigger."""
    checkers = [c for c in (options if options else _ALL_ADVICE) if c != "JobChecker"]
    advice = AdviceProto()
    lines = []
    for name in sorted(checkers):
        advice.checkers[name].SetInParent()
        if name == "ExpensiveOperationChecker":
            advice.checkers[name].reports.extend(_expensive_operations(graph, op_log, run_metas))
        lines.append(f"\n{name}:\n" + "".join(r + "\n" for r in advice.checkers[name].reports))
    sys.stdout.write("".join(lines))
    sys.stdout.flush()
    return advice


@tf_export("profiler.advise")
def advise(graph: Any = None, run_meta: Any = None, options: Any = 0) -> Any:
    """Auto-profile and advise: an AdviceProto with each checker's reports."""
    graph = graph or ops.get_default_graph()
    op_log = _merge_default_with_oplog(graph, None, run_meta, add_trace=True)
    return _advise(graph, op_log, {0: run_meta} if run_meta else {}, None if options == 0 else options)


@tf_export("profiler.Profiler")
class Profiler:
    """A multi-step profiler: add traced steps, then profile any view over one step or their average."""

    def __init__(self, graph: Any = None, op_log: Any = None) -> None:
        self._graph = graph or ops.get_default_graph()
        self._op_log = _merge_default_with_oplog(self._graph, op_log=op_log)
        self._steps: dict[int, Any] = {}

    def add_step(self, step: int, run_meta: Any) -> None:
        """Add the statistics of one traced session run under a step id."""
        self._op_log = _merge_default_with_oplog(self._graph, self._op_log, run_meta=run_meta)
        self._steps[step] = run_meta

    def _profile(self, cmd: str, options: dict[str, Any]) -> Any:
        return _analyze(self._graph, self._op_log, self._steps, cmd, options)

    def profile_python(self, options: dict[str, Any]) -> Any:
        """The code view (Python call stacks), as a MultiGraphNodeProto."""
        return self._profile("code", options)

    def profile_operations(self, options: dict[str, Any]) -> Any:
        """The op-type view, as a MultiGraphNodeProto."""
        return self._profile("op", options)

    def profile_name_scope(self, options: dict[str, Any]) -> Any:
        """The name-scope view, as a GraphNodeProto."""
        return self._profile("scope", options)

    def profile_graph(self, options: dict[str, Any]) -> Any:
        """The dataflow view, as a GraphNodeProto."""
        return self._profile("graph", options)

    def advise(self, options: Any = None) -> Any:
        """The advisor's AdviceProto over the added steps."""
        return _advise(self._graph, self._op_log, self._steps, options)

    def serialize_to_string(self) -> bytes:
        """The profile as TF's ProfileProto bytes (nodes, steps, strings) for offline tools."""
        profile = _ProfileProto()
        for i, op in enumerate(self._graph.get_operations()):
            node = profile.nodes[i]
            node.name = op.name
            node.op = op.type
            node.id = i
        profile.steps.extend(sorted(self._steps))
        for i, s in self._op_log.id_to_string.items():
            profile.id_to_string[i] = s
        return profile.SerializeToString()
