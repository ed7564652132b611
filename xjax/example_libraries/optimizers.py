"""Optimisers and schedules, with the names of `jax.example_libraries.optimizers`."""
from xjax._src.example_libraries.optimizers import (  # noqa: F401
    JoinPoint, Optimizer, OptimizerState, adagrad, adam, adamax, clip_grads, constant,
    exponential_decay, inverse_time_decay, l2_norm, make_schedule, momentum, nesterov,
    optimizer, pack_optimizer_state, piecewise_constant, polynomial_decay, rmsprop,
    rmsprop_momentum, sgd, sm3, unpack_optimizer_state)
