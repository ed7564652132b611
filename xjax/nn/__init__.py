"""Neural-network helpers (``jax.nn``): activation functions and the softmax family."""
from xjax._src.nn.activations import (celu, elu, gelu, glu, hard_sigmoid, hard_silu,  # noqa
                                      hard_swish, hard_tanh, leaky_relu, log_sigmoid,
                                      log_softmax, logsumexp, mish, one_hot, relu, relu6,
                                      selu, sigmoid, silu, soft_sign, softmax, softplus,
                                      sparse_plus, squareplus, standardize, swish)
from xjax._src.numpy.ufuncs import tanh  # noqa: F401
