"""Shape arguments (``core.concrete.canonicalize_shape``), as JAX 0.10.2 takes them: any
iterable of objects with ``__index__`` (a TensorShape-like object), a 1-D integer ndarray or
concrete Array; a traced dimension raises JAX's TypeError telling where it came from."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax, random


class _Dim:
  def __init__(self, v):
    self.v = v

  def __index__(self):
    return self.v


class _TensorShape:
  """What TensorFlow Probability hands to ``jnp.broadcast_to``: dimensions with __index__."""
  def __init__(self, dims):
    self.dims = [_Dim(d) for d in dims]

  def __iter__(self):
    return iter(self.dims)

  def __len__(self):
    return len(self.dims)


SHAPES = {"tensor_shape": lambda: _TensorShape([2, 3]), "ndarray": lambda: np.array([2, 3]),
          "int64 ndarray": lambda: np.array([2, 3], np.int64), "Array": lambda: jnp.array([2, 3]),
          "mixed list": lambda: [np.int32(2), jnp.array(3)], "generator": lambda: (d for d in (2, 3))}
KEY = random.key(0)
BUILDERS = {
    "zeros": jnp.zeros, "ones": jnp.ones, "empty": jnp.empty, "full": lambda s: jnp.full(s, 2.0),
    "zeros_like": lambda s: jnp.zeros_like(1.0, shape=s),
    "broadcast_to": lambda s: jnp.broadcast_to(1.0, s),
    "reshape": lambda s: jnp.reshape(jnp.arange(6.0), s),
    "Array.reshape": lambda s: jnp.arange(6.0).reshape(s), "tile": lambda s: jnp.tile(1.0, s),
    "random.normal": lambda s: random.normal(KEY, s),
    "random.bernoulli": lambda s: random.bernoulli(KEY, 0.5, s),
    "random.split": lambda s: random.split(KEY, s),
    "lax.full": lambda s: lax.full(s, 1.0), "lax.reshape": lambda s: lax.reshape(jnp.arange(6), s),
    "lax.broadcast_in_dim": lambda s: lax.broadcast_in_dim(1.0, s, ()),
    "lax.broadcasted_iota": lambda s: lax.broadcasted_iota(np.int32, s, 0),
    "eval_shape": lambda s: xjax.eval_shape(lambda: jnp.zeros(s)),
}


@pytest.mark.parametrize("build", BUILDERS.values(), ids=list(BUILDERS))
@pytest.mark.parametrize("shape", SHAPES.values(), ids=list(SHAPES))
def test_shape_arguments(build, shape):
  if build is BUILDERS["eval_shape"] and shape is SHAPES["Array"]:
    pytest.skip("iterating an Array under a trace gives tracers (test_array_shape_under_a_trace)")
  out = build(shape())
  assert out.shape == (2, 3) and all(type(d) is int for d in out.shape)


def test_array_shape_under_a_trace():
  """As in JAX: iterating a closed-over Array inside a trace indexes it with traced ops, so
  its elements are not concrete dimensions there."""
  shape = jnp.array([2, 3])
  with pytest.raises(TypeError, match=r"got \[2 3\]\.\nIf using `jit`"):
    xjax.eval_shape(lambda: jnp.zeros(shape))


def test_values_follow_the_shape():
  np.testing.assert_array_equal(jnp.full(np.array([2]), 7), [7, 7])
  np.testing.assert_array_equal(jnp.reshape(jnp.arange(6), np.array([3, -1])),
                                np.arange(6).reshape(3, 2))
  assert jnp.zeros((True, 2)).shape == (1, 2)  # a bool is an int, as in JAX


@pytest.mark.parametrize("shape, shown", [
    ((2.0,), "(2.0,)"), ("ab", "('ab',)"), (None, "(None,)"),
    (np.array([2.0, 3.0]), "[2. 3.]"), (np.ones((2, 2), int), "[[1 1]\n [1 1]]")])
def test_bad_shapes(shape, shown):
  msg = f"Shapes must be 1D sequences of concrete values of integer type, got {shown}."
  for build in (jnp.zeros, lambda s: lax.full(s, 1.0), lambda s: random.normal(KEY, s)):
    with pytest.raises(TypeError) as e:
      build(shape)
    assert str(e.value) == msg


@pytest.mark.parametrize("fn, arg, shown", [
    (lambda n: jnp.zeros(n), 3, r"\(Traced<.*int32\[\].*>,\)"),
    (lambda n: jnp.zeros((n, 2)), 3, r"\(Traced<.*int32\[\].*>, 2\)"),
    (lambda s: jnp.zeros(s), np.array([2, 3], np.int32), r"Traced<.*int32\[2\].*>"),
    (lambda n: jnp.broadcast_to(1.0, (n,)), 3, r"\(Traced<.*>,\)"),
    (lambda n: jnp.arange(6.0).reshape((n, 2)), 3, r"\(Traced<.*>, 2\)"),
    (lambda n: random.normal(KEY, (n,)), 3, r"\(Traced<.*>,\)"),
    (lambda s: lax.full(s, 1.0), np.array([2, 3], np.int32), r"Traced<.*int32\[2\].*>"),
    (lambda n: lax.broadcast_in_dim(1.0, (n,), ()), 3, r"\(Traced<.*>,\)")])
def test_traced_dimensions_raise_jax_error(fn, arg, shown):
  """JAX 0.10.2: TypeError, the shape, the jit hint, then where the tracer came from."""
  with pytest.raises(TypeError, match=r"^Shapes must be 1D sequences of concrete values of "
                     r"integer type, got " + shown + r"\.\nIf using `jit`, try using "
                     r"`static_argnums` or applying `jit` to smaller subfunctions\.\n"
                     r"(?s:.*)depends on the value of the argument"):
    xjax.jit(fn)(arg)


def test_concrete_tracers_are_dimensions():
  """Under grad (not jit) a dimension computed from a traced value is still concrete."""
  assert xjax.grad(lambda x: jnp.zeros(x.astype(int)).sum() + x)(3.0) == 1.0
