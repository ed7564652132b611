"""`xjax.api_util` (flatten_fun, debug_info, ...) and JAX's plain call primitives
(`closed_call_p`, `call_p` in `extend.core.primitives`), as numpyro's provenance tracking
uses them; results as JAX 0.10.2 gives them."""
import numpy as np
import pytest

import xjax
import xjax.extend.linear_util as lu
import xjax.numpy as jnp
from xjax import api_util
from xjax.extend.core.primitives import call_p, closed_call_p


def f(x, y, *, z):
  return {"s": x + y * z}


def test_debug_info_names_the_flat_arguments():
  d = api_util.debug_info("test", f, (1., 2.), {"z": 3.})
  assert d.arg_names == ["x", "y", "z"]
  assert d.func_name == "f"


def test_flatten_fun_calls_on_leaves_and_records_the_output_tree():
  args, tree = xjax.tree.flatten(((1., 2.), {"z": 3.}))
  flat, out_tree = api_util.flatten_fun(lu.wrap_init(f), tree)
  with pytest.raises(ValueError, match="only after"):
    out_tree()
  assert flat.call_wrapped(*args) == [7.0]
  assert str(out_tree()) == "PyTreeDef({'s': *})"
  jaxpr = xjax.make_jaxpr(flat.call_wrapped)(*args)
  assert len(jaxpr.jaxpr.invars) == 3
  flat2, out2 = api_util.flatten_fun_nokwargs(lu.wrap_init(lambda x, y: (x, [y])),
                                              xjax.tree.structure((1., 2.)))
  assert flat2.call_wrapped(1., 2.) == [1.0, 2.0]
  assert str(out2()) == "PyTreeDef((*, [*]))"


def test_shaped_abstractify():
  assert str(api_util.shaped_abstractify(1.0)) == "~float32[]"
  assert str(api_util.shaped_abstractify(jnp.ones(3))) == "float32[3]"


def test_call_primitives_run_and_transform():
  closed = xjax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.)
  want = 2 * np.sin(np.float32(1.))
  np.testing.assert_allclose(closed_call_p.bind(jnp.float32(1.), call_jaxpr=closed)[0], want,
                             rtol=1e-6)
  np.testing.assert_allclose(xjax.grad(lambda x: closed_call_p.bind(x, call_jaxpr=closed)[0])(1.),
                             2 * np.cos(1.), rtol=1e-6)
  vm = xjax.vmap(lambda x: call_p.bind(x, call_jaxpr=closed.jaxpr)[0])(jnp.arange(3.))
  np.testing.assert_allclose(vm, 2 * np.sin(np.arange(3.)), rtol=1e-6)
  jitted = xjax.jit(lambda x: call_p.bind(x, call_jaxpr=closed.jaxpr)[0])
  np.testing.assert_allclose(jitted(1.), want, rtol=1e-6)
  linear = xjax.make_jaxpr(lambda x: 3. * x)(1.)
  transposed = xjax.linear_transpose(lambda x: closed_call_p.bind(x, call_jaxpr=linear)[0], 1.)
  assert float(transposed(1.0)[0]) == 3.0
