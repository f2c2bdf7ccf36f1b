"""`tf.saved_model.main_op`: the op a loader runs after restoring variables (initializers of what the
checkpoint does not hold: local variables, tables)."""

from __future__ import annotations

from tensorweave.framework.graph import GraphKeys, Operation, control_dependencies, get_collection
from tensorweave.ops import control_flow_ops, variables
from tensorweave.platform.tf_export import tf_export


def _tables_initializer() -> Operation:
    """TF's `tables_initializer()`: every table initializer in the graph, or a no-op when there are none."""
    initializers = get_collection(GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return control_flow_ops.group(*initializers, name="init_all_tables")
    return control_flow_ops.no_op(name="init_all_tables")


@tf_export("saved_model.main_op.main_op")
def main_op() -> Operation:
    """Initialize global and local variables and tables: the usual main op of a SavedModel."""
    return control_flow_ops.group(variables.global_variables_initializer(),
                                  variables.local_variables_initializer(), _tables_initializer())


@tf_export("saved_model.main_op_with_restore", "saved_model.main_op.main_op_with_restore")
def main_op_with_restore(restore_op_name: str) -> Operation:
    """`main_op()`, then the restore op named `restore_op_name`."""
    with control_dependencies([main_op()]):
        return control_flow_ops.group(restore_op_name)
