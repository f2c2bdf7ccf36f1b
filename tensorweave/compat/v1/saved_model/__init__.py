"""`tf.saved_model`: TF1's SavedModel API (builder, loader, signatures, tensor infos, constants), with its
sub-namespaces as TF1 has them and their names also at this level."""

from tensorweave.compat.v1.saved_model import (
    builder,
    constants,
    loader,
    main_op,
    signature_constants,
    signature_def_utils,
    tag_constants,
    utils,
)
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "saved_model")
