"""`tf.compat`: string and type helpers, forward compatibility, and `v1` (this API itself).

TF's `tf.compat.v2` is the TF2 API, which tensorweave does not build, so it is not exported. `v1` is the API
package that imports this module: the package sets it once imported, so this module imports nothing above it.
"""

from types import ModuleType

from tensorweave.framework.tensor_shape import dimension_at_index, dimension_value
from tensorweave.platform.compat import (
    as_bytes,
    as_str,
    as_str_any,
    as_text,
    bytes_or_text_types,
    complex_types,
    forward_compatibility_horizon,
    forward_compatible,
    integral_types,
    path_to_str,
    real_types,
)

v1: ModuleType  # tensorweave.compat.v1 itself, set by its __init__

__all__ = [
    "as_bytes", "as_str", "as_str_any", "as_text", "bytes_or_text_types", "complex_types",
    "dimension_at_index", "dimension_value", "forward_compatibility_horizon", "forward_compatible",
    "integral_types", "path_to_str", "real_types", "v1",
]
