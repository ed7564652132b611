"""Neural-network layers as (init_fun, apply_fun) pairs, with the names of
`jax.example_libraries.stax`."""
from xjax._src.example_libraries.stax import (  # noqa: F401
    AvgPool, BatchNorm, Conv, Conv1DTranspose, ConvTranspose, Dense, Dropout, Elu, Exp,
    FanInConcat, FanInSum, FanOut, Flatten, Gelu, GeneralConv, GeneralConvTranspose, Identity,
    LeakyRelu, LogSoftmax, MaxPool, Relu, Selu, Sigmoid, Softmax, Softplus, SumPool, Tanh,
    elementwise, parallel, serial, shape_dependent)
