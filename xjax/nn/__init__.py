"""Neural-network helpers (``jax.nn``): activations, the softmax family, one_hot and
dot-product attention."""
from xjax._src.libraries.nn.activations import (celu, elu, gelu, glu, hard_sigmoid,  # noqa: F401
                                                hard_silu, hard_swish, hard_tanh, identity,
                                                leaky_relu, log1mexp, log_sigmoid, mish, relu,
                                                relu6, selu, sigmoid, silu, soft_sign, softplus,
                                                sparse_plus, sparse_sigmoid, squareplus, swish)
from xjax._src.libraries.nn.attention import dot_product_attention  # noqa: F401
from xjax._src.libraries.nn.one_hot import one_hot  # noqa: F401
from xjax._src.libraries.nn.softmax import (log_softmax, logmeanexp, softmax,  # noqa: F401
                                            standardize)
from xjax._src.libraries.numpy.ufuncs import tanh  # noqa: F401
from xjax._src.libraries.scipy.special.log_sum_exp import logsumexp  # noqa: F401
from xjax.nn import initializers  # noqa: F401,E402
from xjax._src.libraries.nn.scaled_dot import (get_scaled_dot_general_config,  # noqa: F401,E402
                                               scaled_dot_general, scaled_matmul)
