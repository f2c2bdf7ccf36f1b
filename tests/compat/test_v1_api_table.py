"""`tensorweave.compat.v1` is built from the table of public names (`platform/tf_export`), not from lists.

Each compat module imports modules (the implementation modules that declare names, its sub-namespaces) and
fills itself with `populate`; every declared dotted name is then reachable as `tf.<dotted name>`, and a
namespace holds nothing else.
"""

import ast
import importlib
import pathlib
import types

import pytest

import tensorweave.compat.v1 as tf
from tensorweave.ops import raw_ops
from tensorweave.platform import tf_export

COMPAT_V1 = pathlib.Path(tf.__file__).parent
MODULES = sorted(COMPAT_V1.glob("*.py"))


def _resolve(dotted: str) -> object:
    value = tf
    for part in dotted.split(".") if dotted else ():
        value = getattr(value, part)
    return value


def _is_module(dotted: str) -> bool:
    try:
        importlib.import_module(dotted)
    except ImportError:
        return False
    return True


def _lists_names(path: pathlib.Path) -> list[str]:
    """What in a compat module names public API objects one by one: `__all__`, `from m import name` of
    anything but a module (or the table's own functions), `import *`, and module-level public assignments."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [f"line {node.lineno}: assigns {t.id}" for t in targets
                      if isinstance(t, ast.Name) and (t.id == "__all__" or not t.id.startswith("_"))]
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module or not node.module.startswith("tensorweave"):
                found.append(f"line {node.lineno}: imports from {'.' * node.level}{node.module}")
            elif node.module != tf_export.__name__:
                found += [f"line {node.lineno}: imports {alias.name} from {node.module}" for alias in node.names
                          if alias.name == "*" or not _is_module(f"{node.module}.{alias.name}")]
    return found


def test_the_checker_sees_name_lists(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from tensorweave.ops.nn_ops import relu\nfrom tensorweave.ops import nn_ops as _nn_ops\n"
                      "from tensorweave.platform.tf_export import populate\n__all__ = ['relu']\nmod = relu\n"
                      "from tensorweave.platform.flags import *\n")
    assert _lists_names(module) == ["line 1: imports relu from tensorweave.ops.nn_ops", "line 4: assigns __all__",
                                    "line 5: assigns mod", "line 6: imports * from tensorweave.platform.flags"]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_compat_module_lists_names(path):
    assert _lists_names(path) == []


def _namespace_modules() -> dict[str, types.ModuleType]:
    """Every namespace module under `tf`, by its first dotted namespace ('' for `tf` itself): `tf.flags`, also
    reachable as `tf.app.flags`, is listed once."""
    found = {"": tf}
    queue = [("", tf)]
    for namespace, module in queue:  # grows while it is walked
        for name, value in sorted(vars(module).items()):
            if (isinstance(value, types.ModuleType) and not name.startswith("_")
                    and value.__name__.startswith(tf.__name__) and value not in found.values()):
                found[f"{namespace}.{name}".lstrip(".")] = value
                queue.append((f"{namespace}.{name}".lstrip("."), value))
    return found


def test_every_declared_name_is_reachable_from_tf():
    declared = {namespace for namespace in tf_export._API}
    assert {"", "nn", "math", "io.gfile", "train", "errors", "flags"} <= declared
    for namespace in declared:
        for name, value in tf_export.names(namespace).items():
            dotted = f"{namespace}.{name}".lstrip(".")
            assert _resolve(dotted) is value, f"tf.{dotted}"


@pytest.mark.parametrize("namespace", sorted(_namespace_modules()), ids=lambda n: n or "tf")
def test_a_namespace_holds_its_declared_names_and_its_sub_namespaces(namespace):
    module = _namespace_modules()[namespace]
    public = {name for name in vars(module) if not name.startswith("_")}
    held = {name for name in public if isinstance(getattr(module, name), types.ModuleType)}
    assert public - held == {name for name in tf_export.names(namespace) if not name.startswith("_")} - held
    assert sorted(module.__all__) == sorted(public)


def test_one_module_may_serve_two_namespaces():
    assert tf.flags is tf.app.flags
    assert tf.compat.v1 is tf
    assert tf.raw_ops is raw_ops and tf.raw_ops.MatMul.op.name == "MatMul"


def test_a_second_declaration_for_another_object_raises():
    def add(x, y, name=None):
        return x + y

    with pytest.raises(ValueError, match=r"tf.math.add is already declared for <function add"):
        tf_export.tf_export("math.add")(add)
    with pytest.raises(ValueError, match=r"tf.float32 is already declared"):
        tf_export.export_value(tf.float64, "float32")
    tf_export.export_value(tf.add, "math.add")  # the same object again changes nothing
    assert tf_export.names("math")["add"] is tf.add is tf.math.add
