"""make_jaxpr: the IR, its printing in JAX's format, and eval_jaxpr."""
import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax._src.core.jaxpr import eval_jaxpr


def test_seed_example_prints_like_jax():
  x = np.ones((3, 4), np.float32)
  y = np.ones(4, np.float32)
  text = str(jax.make_jaxpr(lambda x, y: jnp.dot(x + 1, y + 1))(x, y))
  assert text.startswith("{ lambda ; a:f32[3,4] b:f32[4]. let\n"
                         "    c:f32[3,4] = add a 1.0:f32[]\n"
                         "    d:f32[4] = add b 1.0:f32[]\n")
  assert "e:f32[3] = dot_general[" in text
  assert text.endswith("in (e,) }")


def test_short_jaxprs_print_on_one_line():
  assert str(jax.make_jaxpr(lambda x: x + 1)(np.uint8(3))) == \
      "{ lambda ; a:u8[]. let b:u8[] = add a 1:u8[] in (b,) }"
  assert str(jax.make_jaxpr(lambda x: x)(1.0)) == "{ lambda ; a:f32[]. let  in (a,) }"


def test_closed_jaxpr_structure():
  c = jnp.arange(3.0)
  closed = jax.make_jaxpr(lambda x: jnp.sin(x) * c)(jnp.ones(3))
  assert len(closed.consts) == 1 and len(closed.jaxpr.constvars) == 1
  np.testing.assert_array_equal(closed.consts[0], [0, 1, 2])
  assert [e.primitive.name for e in closed.jaxpr.eqns] == ["sin", "mul"]
  assert closed.jaxpr.invars[0].aval.shape == (3,)
  assert str(closed).startswith("{ lambda a:f32[3]; b:f32[3]. let")


def test_nested_jaxpr_is_indented():
  inner = jax.jit(lambda z: z * 2)
  text = str(jax.make_jaxpr(lambda x: inner(x) + 1)(jnp.ones(3)))
  assert "jit[" in text and "jaxpr={ lambda ; " in text and "name=<lambda>" in text


def test_static_argnums():
  closed = jax.make_jaxpr(lambda x, n: x * n, static_argnums=1)(1.0, 3)
  assert "mul a 3.0:f32[]" in str(closed) or "mul a 3" in str(closed)


def test_eval_jaxpr_matches_function():
  f = lambda x, y: jnp.tanh(x) @ y + 1
  x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
  y = np.random.RandomState(1).randn(4).astype(np.float32)
  closed = jax.make_jaxpr(f)(x, y)
  out, = eval_jaxpr(closed.jaxpr, closed.consts, x, y)
  np.testing.assert_allclose(out, f(x, y), rtol=1e-6)


def test_return_shape():
  closed, shape = jax.make_jaxpr(lambda x: (x, x.sum()), return_shape=True)(np.ones(2))
  assert shape[0].shape == (2,) and shape[1].shape == ()


def test_lax_dtype_mismatch():
  from xjax import lax
  with pytest.raises(TypeError, match="add requires arguments to have the same dtypes, got "
                     "int32, float32"):
    lax.add(1, 1.0)
  np.testing.assert_allclose(lax.add(jnp.float32(1), 1.0), 2.0)


def test_shape_mismatch_names_both_shapes():
  with pytest.raises(TypeError, match=r"\(3,\).*\(4,\)"):
    jnp.ones(3) + jnp.ones(4)


def test_jaxpr_and_closed_jaxpr_replace_fields_as_jax():
  """kfac-jax rebuilds jaxprs with ``jaxpr.replace(eqns=..., outvars=...)``."""
  closed = jax.make_jaxpr(lambda x: x + 1)(1.0)
  swapped = closed.jaxpr.replace(outvars=closed.jaxpr.invars)
  assert str(swapped) == "{ lambda ; a:f32[]. let _:f32[] = add a 1.0:f32[] in (a,) }"
  assert swapped.eqns == closed.jaxpr.eqns and closed.jaxpr.outvars != swapped.outvars
  assert closed.replace(jaxpr=swapped).jaxpr is swapped
  with pytest.raises(ValueError, match="Unknown keyword arguments: {'foo': 1}"):
    closed.jaxpr.replace(foo=1)


def test_closed_jaxpr_forwards_its_jaxprs_fields():   # as JAX 0.10.2's ClosedJaxpr
  c = np.arange(3., dtype=np.float32)
  cj = jax.make_jaxpr(lambda a: a + jnp.asarray(c) * 2)(np.ones(3, np.float32))
  j = cj.jaxpr
  assert cj.invars is j.invars and cj.outvars is j.outvars and cj.constvars is j.constvars
  assert cj.debug_info is j.debug_info and cj.debug_info.arg_names == ("a",)
  assert len(cj.invars) == 1 and str(cj.invars[0].aval) == "float32[3]"
  mapped = cj.map_jaxpr(lambda jx: jx.replace(outvars=jx.invars))
  assert mapped.consts == cj.consts and mapped.outvars == j.invars
  np.testing.assert_array_equal(
      jax.core.eval_jaxpr(mapped.jaxpr, mapped.consts, np.ones(3, np.float32))[0], np.ones(3))
