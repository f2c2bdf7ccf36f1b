"""`tf.compat`: string and type helpers, forward compatibility, and `v1` (this API itself).

TF's `tf.compat.v2` is the TF2 API, which tensorweave does not build, so it is not exported. `v1` is the API
package this module belongs to, declared here from `sys.modules` (the package is importing this module), so
that this module never imports its own package.
"""

import sys as _sys

from tensorweave.framework import tensor_shape as _tensor_shape
from tensorweave.platform import compat as _compat
from tensorweave.platform.tf_export import export_value as _export_value
from tensorweave.platform.tf_export import populate as _populate

_export_value(_sys.modules[__package__], "compat.v1")

_populate(globals(), "compat")
