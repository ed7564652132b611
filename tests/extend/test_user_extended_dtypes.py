"""Extended dtypes defined outside xjax the way JAX's are: an ``ExtendedDType`` subclass
whose ``_rules`` give its storage, conversions, tangents and how autodiff adds them (flax's
fp8 "meta" dtype accumulates gradients by ``max``). Values recorded from JAX 0.10.2."""
import dataclasses
from functools import partial

import numpy as np

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.core import ShapedArray
from xjax import dtypes
from xjax._src.foundations.dtypes import ExtendedDType  # (jax._src.dtypes', as flax imports it)


class _MaxRules:
  @staticmethod
  def physical_element_aval(dtype):
    return ShapedArray((), dtype.float_dtype)

  @staticmethod
  def convert_from(edtype, other):
    return edtype.float_dtype == other

  @staticmethod
  def convert_to(other, edtype):
    return edtype.float_dtype == other

  @staticmethod
  def add(dt, x, y):
    as_float = partial(lax.convert_element_type, new_dtype=dt.float_dtype)
    return lax.convert_element_type(lax.max(as_float(x), as_float(y)), dt)

  @staticmethod
  def zero(dt):
    return lax.convert_element_type(np.array(-np.inf, dt.float_dtype), dt)

  @staticmethod
  def tangent_dtype(dtype):
    return dtype

  @staticmethod
  def full(shape, fill_value, dtype):
    return lax.convert_element_type(lax.full(shape, fill_value, dtype.float_dtype), dtype)


class _maxgrad(dtypes.extended):
  pass


@dataclasses.dataclass(frozen=True)
class _MaxGrad(ExtendedDType):
  float_dtype: np.dtype
  _rules: type = _MaxRules
  type: type = _maxgrad
  name = property(lambda self: "maxgrad32")


MG = _MaxGrad(np.dtype("float32"))


def _loss(x, h):
  hm = lax.convert_element_type(h, MG)

  @xjax.custom_vjp
  def use(x, hm):
    return x * 2
  use.defvjp(lambda x, hm: (x * 2, x),
             lambda x, g: (2 * g, lax.convert_element_type(jnp.abs(x) * jnp.ones(3), MG)))
  c, _ = lax.scan(lambda c, _: (use(c, hm), None), x, None, length=3)
  return c.sum()


def test_gradients_of_a_dtype_with_rules_accumulate_by_its_add():
  """Each of the scan's three steps returns |x| (1x, 2x, 4x) as the cotangent of the same
  closed-over value: its rules add by max, so the gradient is 4|x|, not the sum."""
  x, h = jnp.array([1., -5., 2.]), jnp.zeros(3)
  for grad in (xjax.grad(_loss, (0, 1)), xjax.jit(xjax.grad(_loss, (0, 1)))):
    gx, gh = grad(x, h)
    assert gx.tolist() == [8., 8., 8.] and gh.tolist() == [4., 20., 8.]
    assert gh.dtype == np.float32


def test_a_dtype_with_rules_converts_and_fills():
  y = lax.convert_element_type(jnp.arange(3.), MG)
  assert str(y.dtype) == "maxgrad32" and str(xjax.typeof(y)) == "maxgrad32[3]"
  assert lax.convert_element_type(y, jnp.float32).tolist() == [0., 1., 2.]
  assert jnp.issubdtype(y.dtype, _maxgrad) and jnp.issubdtype(y.dtype, dtypes.extended)
  full = xjax.jit(lambda: lax.convert_element_type(lax.full((2,), 1.5, MG), jnp.float32))
  assert full().tolist() == [1.5, 1.5]
