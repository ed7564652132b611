"""First-order optimisers as (init_fun, update_fun, get_params) triples over pytrees, as
`jax.example_libraries.optimizers`, and step-size schedules.

An optimiser is written for one array (``@optimizer``); the decorator maps it over every
leaf of a parameter pytree and keeps the per-leaf states in an ``OptimizerState``.
"""
from __future__ import annotations

import functools
from collections import namedtuple
from collections.abc import Callable
from typing import Any, NamedTuple

import xjax.numpy as jnp
from xjax._src.foundations import tree_util as _tree_util

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
_tree_util.register_pytree_node(OptimizerState,
                                lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
                                lambda aux, children: OptimizerState(children[0], *aux))


# The type names JAX's signatures use.
Array = Any
Params = Any
State = Any
Updates = Params
Step = int
InitFn = Callable[[Params], OptimizerState]
ParamsFn = Callable[[OptimizerState], Params]
UpdateFn = Callable[[Step, Updates, OptimizerState], OptimizerState]
Schedule = Callable[[Step], float]


class Optimizer(NamedTuple):
  init_fn: Callable
  update_fn: Callable
  params_fn: Callable


def _flatten_states(states):
  """(leaves per state, treedef per state), as tuples (JAX's ``unzip2``)."""
  pairs = [_tree_util.tree_flatten(s) for s in states]
  return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


def optimizer(opt_maker: Callable) -> Callable[..., Optimizer]:
  """Lifts an optimiser over single arrays to one over pytrees of arrays."""
  @functools.wraps(opt_maker)
  def tree_opt_maker(*args, **kwargs):
    init, update, get_params = opt_maker(*args, **kwargs)

    @functools.wraps(init)
    def tree_init(x0_tree):
      x0_flat, tree = _tree_util.tree_flatten(x0_tree)
      states_flat, subtrees = _flatten_states([init(x0) for x0 in x0_flat])
      return OptimizerState(states_flat, tree, subtrees)

    @functools.wraps(update)
    def tree_update(i, grad_tree, opt_state):
      states_flat, tree, subtrees = opt_state
      grad_flat, tree2 = _tree_util.tree_flatten(grad_tree)
      if tree2 != tree:
        raise TypeError("optimizer update function was passed a gradient tree that did not "
                        "match the parameter tree structure with which it was initialized: "
                        f"parameter tree {tree} and grad tree {tree2}.")
      states = [_tree_util.tree_unflatten(t, s) for t, s in zip(subtrees, states_flat)]
      new_flat, subtrees2 = _flatten_states(
          [update(i, g, s) for g, s in zip(grad_flat, states)])
      for s1, s2 in zip(subtrees, subtrees2):
        if s1 != s2:
          raise TypeError("optimizer update function produced an output structure that did "
                          f"not match its input structure: input {s1} and output {s2}.")
      return OptimizerState(new_flat, tree, subtrees)

    @functools.wraps(get_params)
    def tree_get_params(opt_state):
      states_flat, tree, subtrees = opt_state
      states = [_tree_util.tree_unflatten(t, s) for t, s in zip(subtrees, states_flat)]
      return _tree_util.tree_unflatten(tree, [get_params(s) for s in states])

    return Optimizer(tree_init, tree_update, tree_get_params)
  return tree_opt_maker


# ---- schedules: step index -> step size ----

def constant(step_size) -> Callable:
  return lambda i: step_size


def exponential_decay(step_size, decay_steps, decay_rate) -> Callable:
  return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False) -> Callable:
  if staircase:
    return lambda i: step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
  return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0) -> Callable:
  def schedule(step_num):
    step_num = jnp.minimum(step_num, decay_steps)
    mult = (1 - step_num / decay_steps) ** power
    return mult * (step_size - final_step_size) + final_step_size
  return schedule


def piecewise_constant(boundaries: Any, values: Any) -> Callable:
  boundaries, values = jnp.array(boundaries), jnp.array(values)
  if not boundaries.ndim == values.ndim == 1:
    raise ValueError("boundaries and values must be sequences")
  if not boundaries.shape[0] == values.shape[0] - 1:
    raise ValueError("boundaries length must be one shorter than values length")
  return lambda i: values[jnp.sum(i > boundaries)]


def make_schedule(scalar_or_schedule) -> Callable:
  if callable(scalar_or_schedule):
    return scalar_or_schedule
  if jnp.ndim(scalar_or_schedule) == 0:
    return constant(scalar_or_schedule)
  raise TypeError(type(scalar_or_schedule))


# ---- optimisers ----

@optimizer
def sgd(step_size):
  """Stochastic gradient descent."""
  step_size = make_schedule(step_size)
  return (lambda x0: x0, lambda i, g, x: x - step_size(i) * g, lambda x: x)


@optimizer
def momentum(step_size, mass: float):
  """Gradient descent with heavy-ball momentum ``mass``."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, velocity = state
    velocity = mass * velocity + g
    return x - step_size(i) * velocity, velocity
  return (lambda x0: (x0, jnp.zeros_like(x0)), update, lambda state: state[0])


@optimizer
def nesterov(step_size, mass: float):
  """Gradient descent with Nesterov momentum."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, velocity = state
    velocity = mass * velocity + g
    return x - step_size(i) * (mass * velocity + g), velocity
  return (lambda x0: (x0, jnp.zeros_like(x0)), update, lambda state: state[0])


def _inv_sqrt_or_zero(a):
  return jnp.where(a > 0, 1. / jnp.sqrt(jnp.where(a > 0, a, 1.)), 0.)


@optimizer
def adagrad(step_size, momentum=0.9):
  """Adagrad (Duchi et al. 2011) with momentum on the scaled gradient."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, g_sq, m = state
    g_sq = g_sq + jnp.square(g)
    m = (1. - momentum) * (g * _inv_sqrt_or_zero(g_sq)) + momentum * m
    return x - step_size(i) * m, g_sq, m
  return (lambda x0: (x0, jnp.zeros_like(x0), jnp.zeros_like(x0)), update,
          lambda state: state[0])


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
  """RMSProp: gradients scaled by a running RMS."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, avg_sq_grad = state
    avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
    return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad
  return (lambda x0: (x0, jnp.zeros_like(x0)), update, lambda state: state[0])


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
  """RMSProp with momentum."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, avg_sq_grad, mom = state
    avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
    mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
    return x - mom, avg_sq_grad, mom
  return (lambda x0: (x0, jnp.zeros_like(x0), jnp.zeros_like(x0)), update,
          lambda state: state[0])


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
  """Adam (Kingma and Ba 2014) with bias-corrected moments."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, m, v = state
    m = (1 - b1) * g + b1 * m
    v = (1 - b2) * jnp.square(g) + b2 * v
    mhat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
    vhat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
    return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v
  return (lambda x0: (x0, jnp.zeros_like(x0), jnp.zeros_like(x0)), update,
          lambda state: state[0])


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
  """AdaMax: Adam with the infinity norm."""
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, m, u = state
    m = (1 - b1) * g + b1 * m
    u = jnp.maximum(b2 * u, jnp.abs(g))
    bias = 1 - jnp.asarray(b1, m.dtype) ** (i + 1)   # (in the moments' dtype, as JAX's)
    return x - (step_size(i) / bias) * m / (u + eps), m, u
  return (lambda x0: (x0, jnp.zeros_like(x0), jnp.zeros_like(x0)), update,
          lambda state: state[0])


@optimizer
def sm3(step_size, momentum=0.9):
  """SM3 (Anil et al. 2019): one accumulator per axis instead of per entry."""
  step_size = make_schedule(step_size)

  def init(x0):
    shape = x0.shape
    x0 = jnp.atleast_1d(x0)
    return x0, jnp.zeros_like(x0), [jnp.zeros(n, x0.dtype) for n in x0.shape], shape

  def update(i, g, state):
    x, m, vs, shape = state
    g = jnp.reshape(g, x.shape)
    along = [v[tuple(slice(None) if a == k else None for a in range(g.ndim))]
             for k, v in enumerate(vs)]
    accum = functools.reduce(jnp.minimum, along) + jnp.square(g)
    m = (1. - momentum) * (g * _inv_sqrt_or_zero(accum)) + momentum * m
    x = x - step_size(i) * m
    vs = [accum.max(tuple(a for a in range(x.ndim) if a != k)) for k in range(x.ndim)]
    return x, m, vs, shape
  return init, update, lambda state: jnp.reshape(state[0], state[3])


# ---- utilities ----

class JoinPoint:
  """Marks where a per-parameter optimiser state sits inside a (nested) pytree."""

  def __init__(self, subtree):
    self.subtree = subtree

  def __iter__(self):
    yield self.subtree


def unpack_optimizer_state(opt_state: OptimizerState):
  """``opt_state`` as a pytree of ``JoinPoint``s (for pickling)."""
  states_flat, tree_def, subtree_defs = opt_state
  return _tree_util.tree_unflatten(tree_def, [JoinPoint(_tree_util.tree_unflatten(t, s))
                                   for t, s in zip(subtree_defs, states_flat)])


def pack_optimizer_state(marked_pytree) -> OptimizerState:
  """Inverse of ``unpack_optimizer_state``."""
  sentinels, tree_def = _tree_util.tree_flatten(marked_pytree)
  if not all(isinstance(s, JoinPoint) for s in sentinels):
    raise TypeError("pack_optimizer_state expects a pytree whose leaves are JoinPoints, as "
                    "unpack_optimizer_state returns.")
  states_flat, subtree_defs = _flatten_states([s.subtree for s in sentinels])
  return OptimizerState(states_flat, tree_def, subtree_defs)


def l2_norm(tree):
  """The Euclidean norm of all leaves together."""
  leaves, _ = _tree_util.tree_flatten(tree)
  return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
  """Scales ``grad_tree`` down so that its l2 norm is at most ``max_norm``."""
  norm = l2_norm(grad_tree)
  return _tree_util.tree_map(lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)), grad_tree)
