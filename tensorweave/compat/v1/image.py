"""`tf.image`: resizing, geometry and colour transforms, dtype conversion, codecs and random augmentations."""

from tensorweave.ops import image_box_ops as _image_box_ops
from tensorweave.ops import image_ops as _image_ops
from tensorweave.ops import image_quality_ops as _image_quality_ops
from tensorweave.ops import image_resize_grad_ops as _image_resize_grad_ops
from tensorweave.ops import space_batch_ops as _space_batch_ops
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "image")
