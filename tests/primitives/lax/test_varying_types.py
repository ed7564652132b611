"""The manual mesh axes shard_map values vary over (JAX's "vma" types, core/varying.py):
types printed as JAX prints them, the ``pvary``/``psum_invariant`` equations JAX inserts,
its errors for loop carries and branches that vary differently.  Every expected text was
recorded from JAX 0.10.2 over a (4, 2) mesh; traced over an AbstractMesh (no devices)."""
import re

import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax import lax
from xjax.sharding import AbstractMesh, AxisType, PartitionSpec as P

mesh = AbstractMesh((4, 2), ("i", "j"), axis_types=(AxisType.Auto,) * 2)
x = jnp.arange(8.) / 3
c = jnp.linspace(0.1, 0.7, 2)


def sm(f, ins, out, **kw):
  return jax.shard_map(f, mesh=mesh, in_specs=ins, out_specs=out, **kw)


def test_types_record_the_axes_values_vary_over():
  types = []

  def body(x, c):
    seen = [x, c, lax.axis_index("i"), lax.all_gather(x, "i"),
            lax.all_gather(x, "i", to="invarying"), lax.pmax(x, "j"), lax.psum(x, "i"),
            jnp.zeros_like(x), x * c]
    types.extend(str(jax.typeof(v)) for v in seen)
    return x
  jax.make_jaxpr(sm(body, (P("i"), P()), P("i")))(x, c)
  assert types == ['float32[2]{V:i}', 'float32[2]', 'int32[]{V:i}', 'float32[4,2]{V:i}', 'float32[4,2]', 'float32[2]{V:i}', 'float32[2]', 'float32[2]{V:i}', 'float32[2]{V:i}']


def test_unchecked_bodies_have_no_varying_types():
  types = []

  def body(x, c):
    types.extend(str(jax.typeof(v)) for v in (x, lax.axis_index("i"), lax.psum(c, "i")))
    return x
  jaxpr = str(jax.make_jaxpr(sm(body, (P("i"), P()), P("i"), check_vma=False))(x, c))
  assert types == ["float32[2]", "int32[]", "float32[2]"]
  assert "psum[axes=('i',)" in jaxpr and "pvary" not in jaxpr


def _f(x, c):
  y = x * c + 1.0
  s = lax.psum(c, "j")
  t = lax.psum(x, "i")
  return y + jnp.sin(c) + s + t + lax.pcast(c, "i", to="varying") * jnp.cos(x)


def test_jaxpr_casts_operands_to_vary_alike_as_jax():
  assert str(jax.make_jaxpr(sm(_f, (P("i"), P()), P("i")))(x, c)) == (
      'let jaxpr = { lambda ; a:f32[2]{V:i} b:f32[2]. let\n'
      "    c:f32[2]{V:i} = pvary[axes=('i',)] b\n"
      '    d:f32[2]{V:i} = mul a c\n'
      "    e:f32[]{V:i} = pvary[axes=('i',)] 1.0:f32[]\n"
      '    f:f32[2]{V:i} = add d e\n'
      "    g:f32[2]{V:j} = pvary[axes=('j',)] b\n"
      "    h:f32[2] = psum_invariant[axes=('j',)] g\n"
      "    i:f32[2] = psum_invariant[axes=('i',)] a\n"
      '    j:f32[2] = sin b\n'
      "    k:f32[2]{V:i} = pvary[axes=('i',)] j\n"
      '    l:f32[2]{V:i} = add f k\n'
      "    m:f32[2]{V:i} = pvary[axes=('i',)] h\n"
      '    n:f32[2]{V:i} = add l m\n'
      "    o:f32[2]{V:i} = pvary[axes=('i',)] i\n"
      '    p:f32[2]{V:i} = add n o\n'
      "    q:f32[2]{V:i} = pvary[axes=('i',)] b\n"
      '    r:f32[2]{V:i} = cos a\n'
      '    s:f32[2]{V:i} = mul q r\n'
      '    t:f32[2]{V:i} = add p s\n'
      '  in (t,) } in\n'
      '{ lambda ; u:f32[8] v:f32[2]. let\n'
      '    w:f32[8] = shard_map[\n'
      '      check_vma=True\n'
      "      in_specs=(P('i',), P())\n"
      '      jaxpr=jaxpr\n'
      "      mesh=AbstractMesh('i': 4, 'j': 2, axis_types=(Auto, Auto))\n"
      "      newly_manual_axes=frozenset({'i', 'j'})\n"
      "      out_specs=(P('i',),)\n"
      '    ] u v\n'
      '  in (w,) }')


def _error(fun) -> str:
  with pytest.raises(TypeError) as info:
    fun()
  return re.sub(r" at \S+:\d+", " at F", str(info.value).split("\n-----")[0])


def test_carries_and_branches_must_vary_alike():
  scan = lambda x, c: lax.scan(lambda k, _: (k + x, None), c, None, length=2)[0]
  assert _error(lambda: jax.make_jaxpr(sm(scan, (P("i"), P()), P("i")))(x, c)) == (
      'scan body function carry input and carry output must have equal types, but they differ:\n'
      '\n'
      'The input carry k has type float32[2] but the corresponding output carry component has type float32[2]{V:i}, so the manual axis types do not match.\n'
      '\n'
      "This might be fixed by applying `jax.lax.pcast(..., ('i',), to='varying')`, to the initial carry value corresponding to the input carry k.\n"
      'See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.\n'
      '\n'
      'Revise the function so that all output types match the corresponding input types.')
  cond = lambda x, c: lax.cond(True, lambda: (x, c), lambda: (c, x))[0]
  assert _error(lambda: jax.make_jaxpr(sm(cond, (P("i"), P()), P("i")))(x, c)) == (
      'cond branches must have equal output types but they differ.\n'
      '\n'
      'true_fun is <lambda> at F\n'
      'false_fun is <lambda> at F\n'
      '\n'
      '  * the output of true_fun at path [0] has type float32[2]{V:i} but the corresponding output of false_fun has type float32[2], so the manual axis types do not match;\n'
      '  * the output of true_fun at path [1] has type float32[2] but the corresponding output of false_fun has type float32[2]{V:i}, so the manual axis types do not match.\n'
      '\n'
      'This might be fixed by:\n'
      "  * applying `jax.lax.pcast(..., (), to='varying')` to the output of true_fun at path [0];\n"
      "  * applying `jax.lax.pcast(..., (), to='varying')` to the output of false_fun at path [1].\n"
      'See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.\n'
      '\n'
      'Revise true_fun and/or false_fun so that all output types match.')
  # the fix JAX suggests works
  fixed = lambda x, c: lax.scan(lambda k, _: (k + x, None), lax.pcast(c, "i", to="varying"),
                                None, length=2)[0]
  jax.make_jaxpr(sm(fixed, (P("i"), P()), P("i")))(x, c)
  # and JAX's own zeros_like of a varying value varies too
  zeros = lambda x: lax.fori_loop(0, 3, lambda i, k: k + x, jnp.zeros_like(x))
  jax.make_jaxpr(sm(zeros, P("i"), P("i")))(x)


def test_pcast_of_a_varying_value_is_refused():
  with pytest.raises(ValueError, match="Unsupported pcast from=varying, to='varying'"):
    jax.make_jaxpr(sm(lambda x: lax.pcast(x, "i", to="varying"), P("i"), P("i")))(x)


def test_values_and_derivatives_on_eight_devices():
  from tests.multi_device_run import run_cases
  assert run_cases("tests/primitives/lax/varying_types_cases.py", devices=8) == 3


def test_a_custom_vjp_bwd_must_vary_as_its_input():
  @jax.custom_vjp
  def f(x):
    return x
  f.defvjp(lambda x: (x, None), lambda _, g: (lax.pmean(g, "i"),))
  loss = lambda a: sm(lambda x: f(x) * x, P("i"), P("i"))(a).sum()
  with pytest.raises(ValueError) as info:
    jax.make_jaxpr(jax.grad(loss))(x)
  assert str(info.value).split("\n-----")[0] == (   # (JAX 0.10.2's text)
      "Custom VJP bwd rule must produce an output with the same type as the args tuple of "
      "the primal function, but at output[0] the bwd rule produced an output of type "
      "float32[2] corresponding to an input of type float32[2]{V:i}, so the manual axis "
      "types do not match")


def test_psum_over_axes_a_value_varies_over_only_in_part_is_refused():
  # (JAX 0.10.2: all the axes summed over must be varying, or all invariant)
  f = sm(lambda a: lax.pmean(a, ("i", "j")), P("i"), P())
  with pytest.raises(ValueError, match=r"jax.lax.psum can only accept axis_name which "
                     r"corresponds to one of varying, unreduced, reduced or invarying state of "
                     r"the input. Got input type: float32\[2\]\{V:i\}, axes: \('i', 'j'\)"):
    jax.make_jaxpr(f)(x)
  both = sm(lambda a: lax.psum(a, ("i", "j")), P(("i", "j")), P())
  assert "psum_invariant[axes=('i', 'j')]" in str(jax.make_jaxpr(both)(jnp.arange(8.)))
