"""jnp.pad in every mode against NumPy: constant, edge, reflect/symmetric (even and odd),
wrap, statistics, linear_ramp, callable modes, gradients and bad keywords."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

from tests.checking import check
from tests.libraries.numpy.operands import A, I, V


@pytest.mark.parametrize("mode,kw", [
    ("constant", {}), ("constant", {"constant_values": 7}),
    ("constant", {"constant_values": ((1, 2), (3, 4))}), ("edge", {}), ("reflect", {}),
    ("symmetric", {}), ("wrap", {}), ("maximum", {}), ("minimum", {"stat_length": 2}),
    ("mean", {})])
def test_pad(mode, kw):
  check(jnp.pad(I, ((1, 2), (3, 0)), mode, **kw), np.pad(I, ((1, 2), (3, 0)), mode, **kw))
  if np.ndim(kw.get("constant_values", 0)) < 2:
    check(jnp.pad(V, (7, 9), mode, **kw), np.pad(V, (7, 9), mode, **kw))


def test_integer_linear_ramp_floors_jax_linspace():
  # JAX builds the ramp with an integer linspace (floored), so 4 where NumPy has 5
  check(jnp.pad(I, ((1, 2), (3, 0)), "linear_ramp", end_values=(5, -5)),
        np.array([[5, 4, 5, 5, 5, 5, 5], [5, 3, 1, 0, 1, 2, 3], [5, 4, 4, 4, 5, 6, 7],
                  [5, 6, 7, 8, 9, 10, 11], [5, 3, 2, 1, 2, 2, 3],
                  [5, 1, -2, -5, -5, -5, -5]], np.int32))
  check(jnp.pad(V, (7, 9), "linear_ramp", end_values=(5, -5)),
        np.pad(V, (7, 9), "linear_ramp", end_values=(5, -5)))


def test_pad_grad_and_float_ramp():
  check(jnp.pad(A, (2, 3), "linear_ramp"), np.pad(A, (2, 3), "linear_ramp"))
  g = xjax.grad(lambda x: jnp.sum(jnp.pad(x, (2, 3), "reflect") ** 2))(np.arange(4.,
                                                                             dtype=np.float32))
  check(g, np.array([0., 6., 12., 6.], np.float32))


@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
def test_pad_reflect_odd(mode):
  x = np.array([[1., 2, 4], [3, 7, 5]], np.float32)
  for pw in [((1, 4), (5, 2)), ((0, 7), (3, 0))]:
    check(jnp.pad(x, pw, mode=mode, reflect_type="odd"),
          np.pad(x, pw, mode=mode, reflect_type="odd"))
  xi = np.array([1, 2, 5], np.int32)
  got = jnp.pad(xi, (2, 3), mode=mode, reflect_type="odd")
  assert got.dtype == np.int32
  check(got, np.pad(xi, (2, 3), mode=mode, reflect_type="odd"))
  check(jnp.pad(np.array([3]), (2, 3), mode=mode, reflect_type="odd"), [3] * 6)


def test_pad_median_and_kwarg_errors():
  x = np.array([[1., 2, 4], [3, 7, 5]], np.float32)
  check(jnp.pad(x, 1, mode="median"), np.pad(x, 1, mode="median"))
  check(jnp.pad(np.array([1, 2, 4, 9]), 1, mode="median"), [3, 1, 2, 4, 9, 3])
  with pytest.raises(NotImplementedError, match="Unimplemented padding mode"):
    jnp.pad(x, 1, mode="foo")
  with pytest.raises(NotImplementedError, match="padding mode"):
    jnp.pad(A, 1, "bogus")
  with pytest.raises(ValueError, match="unsupported keyword arguments"):
    jnp.pad(x, 1, mode="reflect", constant_values=1)
  with pytest.raises(ValueError, match="reflect_type"):
    jnp.pad(x, 1, mode="reflect", reflect_type="bad")


def test_pad_callable_mode():
  x = np.array([[1., 2, 4], [3, 7, 5]], np.float32)

  def fill(v, width, iaxis, kwargs):
    v = v.at[:width[0]].set(kwargs.get("val", 9) + iaxis)
    return v.at[v.shape[0] - width[1]:].set(-1)

  def np_fill(v, width, iaxis, kwargs):
    v[:width[0]] = kwargs.get("val", 9) + iaxis
    v[v.shape[0] - width[1]:] = -1
  check(jnp.pad(x, ((1, 2), (0, 1)), fill, val=5), np.pad(x, ((1, 2), (0, 1)), np_fill, val=5))
  check(jnp.pad(np.array([1, 2, 3]), 1, lambda v, w, i, k: v * 2), [0, 2, 4, 6, 0])
