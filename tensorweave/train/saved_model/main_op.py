"""`tf.saved_model.main_op`: the op a loader runs after restoring variables (initializers of what the
checkpoint does not hold: local variables, tables)."""

from __future__ import annotations

from tensorweave.framework.graph import Operation, control_dependencies
from tensorweave.ops import control_flow_ops, lookup_ops, variables
from tensorweave.platform.tf_export import tf_export


@tf_export("saved_model.main_op.main_op")
def main_op() -> Operation:
    """Initialize global and local variables and tables: the usual main op of a SavedModel."""
    return control_flow_ops.group(variables.global_variables_initializer(),
                                  variables.local_variables_initializer(), lookup_ops.tables_initializer())


@tf_export("saved_model.main_op_with_restore", "saved_model.main_op.main_op_with_restore")
def main_op_with_restore(restore_op_name: str) -> Operation:
    """`main_op()`, then the restore op named `restore_op_name`."""
    with control_dependencies([main_op()]):
        return control_flow_ops.group(restore_op_name)
