"""Weight initializers (``jax.nn.initializers``)."""
from xjax._src.libraries.nn.initializers import (Initializer, constant,  # noqa: F401
                                                 delta_orthogonal, glorot_normal, glorot_uniform,
                                                 he_normal, he_uniform, kaiming_normal,
                                                 kaiming_uniform, lecun_normal, lecun_uniform,
                                                 normal, ones, orthogonal, truncated_normal,
                                                 uniform, variance_scaling, xavier_normal,
                                                 xavier_uniform, zeros)
