"""`tf.distributions`: TF1's probability distributions, the KL registry and the reparameterization types."""

from tensorweave.ops.distributions import bernoulli as _bernoulli
from tensorweave.ops.distributions import beta as _beta
from tensorweave.ops.distributions import categorical as _categorical
from tensorweave.ops.distributions import dirichlet as _dirichlet
from tensorweave.ops.distributions import dirichlet_multinomial as _dirichlet_multinomial
from tensorweave.ops.distributions import distribution as _distribution
from tensorweave.ops.distributions import exponential as _exponential
from tensorweave.ops.distributions import gamma as _gamma
from tensorweave.ops.distributions import kullback_leibler as _kullback_leibler
from tensorweave.ops.distributions import laplace as _laplace
from tensorweave.ops.distributions import multinomial as _multinomial
from tensorweave.ops.distributions import normal as _normal
from tensorweave.ops.distributions import student_t as _student_t
from tensorweave.ops.distributions import uniform as _uniform
from tensorweave.platform.tf_export import populate as _populate

_populate(globals(), "distributions")
