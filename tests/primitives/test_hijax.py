"""Effects a library defines (jax.extend.core.Effect, def_effectful_abstract_eval,
control_flow_allowed_effects) and jax.experimental.hijax (HiPrimitive, high-level types),
against JAX 0.10.2's results."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.experimental import hijax
from xjax.extend.core import Effect, Primitive
from xjax.interpreters import mlir


class _TagEffect(Effect):
  pass


_tag_effect = _TagEffect()
_tagged_p = Primitive("tagged")
_tagged_p.def_impl(lambda x: x + 1)
_tagged_p.def_effectful_abstract_eval(lambda x: (x, {_tag_effect}))
mlir.register_lowering(_tagged_p, mlir.lower_fun(lambda x: x + 1, multiple_results=False))


def test_effects_are_recorded_and_control_flow_consults_the_allowed_set():
  jaxpr = xjax.make_jaxpr(_tagged_p.bind)(1.)
  assert str(jaxpr) == "{ lambda ; a:f32[]. let b:f32[] = tagged a in (b,) }"
  assert jaxpr.effects == {_tag_effect} and repr(_tag_effect) == "_TagEffect"
  assert float(xjax.jit(lambda x: _tagged_p.bind(x) * 2)(1.)) == 4.

  class Unlisted(Effect):
    pass
  unlisted_p = Primitive("unlisted")
  unlisted_p.def_impl(lambda x: x)
  unlisted_p.def_effectful_abstract_eval(lambda x: (x, {Unlisted()}))
  with pytest.raises(NotImplementedError, match="Effects not supported in `scan`"):
    lax.scan(lambda c, _: (unlisted_p.bind(c), None), 0., None, length=3)
  with pytest.raises(NotImplementedError, match="Effects not supported in `while`"):
    lax.while_loop(lambda c: c < 3, unlisted_p.bind, 0.)
  with pytest.raises(NotImplementedError, match="Effects not supported in `cond`"):
    lax.cond(True, unlisted_p.bind, lambda x: x, 1.)
  hijax.control_flow_allowed_effects.add_type(_TagEffect)
  body = lambda c, _: (_tagged_p.bind(c), None)   # noqa: E731
  assert float(xjax.jit(lambda: lax.scan(body, 0., None, length=3)[0])()) == 3.


class _Scale3(hijax.HiPrimitive):
  """A linear primitive written as a class (JAX 0.10.2 gives the same numbers)."""

  def abstract_eval(self, x):
    return x, set()

  def impl(self, x):
    return x * 3

  def to_lojax(self, x):
    return x * 3

  def jvp(self, primals, tangents):
    (x,), (t,) = primals, tangents
    return self.bind(x), self.bind(hijax.instantiate_zeros(t))

  def transpose(self, ct, x):
    assert hijax.is_undefined_primal(x)
    return [self.bind(ct)]


_scale3 = _Scale3("scale3")


def test_hiprimitive_methods_are_its_rules():
  assert float(_scale3.bind(2.)) == float(xjax.jit(_scale3.bind)(2.)) == 6.
  assert str(xjax.make_jaxpr(_scale3.bind)(2.)) == (
      "{ lambda ; a:f32[]. let b:f32[] = scale3 a in (b,) }")
  square = lambda x: _scale3.bind(x) ** 2   # noqa: E731
  assert float(xjax.grad(square)(1.)) == float(xjax.jit(xjax.grad(square))(1.)) == 18.
  with pytest.raises(NotImplementedError, match="Batching rule for 'scale3' not implemented"):
    xjax.vmap(_scale3.bind)(jnp.arange(3.))

  class Batched(_Scale3):
    def batch(self, axis_data, args, dims):
      return self.bind(*args), dims[0]
  np.testing.assert_array_equal(xjax.vmap(Batched("scale3b").bind)(jnp.arange(3.)),
                                [0., 3., 6.])


class _Pair:
  def __init__(self, a, b):
    self.a, self.b = a, b

  def cur_qdd(self):
    return ("pair", 2)


class _PairTy(hijax.MutableHiType):
  describe = hijax.aval_method(lambda self, n: f"traced pair {n}")
  arity = hijax.aval_property(lambda self: 2)

  def str_short(self, short_dtypes=True):
    return "Pair"


hijax.register_hitype(_Pair, lambda p: _PairTy())


def test_high_level_types_work_eagerly_and_are_refused_by_transformations():
  pair = _Pair(jnp.ones(2), jnp.zeros(2))
  assert isinstance(xjax.typeof(pair), _PairTy)
  assert xjax.experimental.cur_qdd(pair) == ("pair", 2)
  assert isinstance(xjax.typeof(pair), hijax.AbstractValue)
  assert isinstance(xjax.typeof(jnp.ones(2)), hijax.AbstractValue)
  seen = []

  def f(p):   # the type's aval_method / aval_property apply to its traced value
    seen.extend([p.describe(3), p.arity])
    return jnp.zeros(())
  assert str(xjax.make_jaxpr(f)(pair)) == "{ lambda ; a:Pair. let  in (0.0:f32[],) }"
  assert seen == ["traced pair 3", 2]
  with pytest.raises(NotImplementedError, match="high-level types"):
    xjax.jit(f)(pair)
  with pytest.raises(NotImplementedError, match="high-level types"):
    xjax.make_jaxpr(lambda p: _scale3.bind(p))(pair)
  with pytest.raises(NotImplementedError, match="VJPHiPrimitive is not supported"):
    hijax.VJPHiPrimitive()
  with pytest.raises(NotImplementedError, match="TransformedRef"):
    hijax.TransformedRef()
