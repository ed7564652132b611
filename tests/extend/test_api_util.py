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
  assert d.arg_names == ("x", "y", "z")
  assert d.traced_for == "test" and d.func_name == "f"
  assert d.func_src_info == f"f at {__file__}:14" and d.func_lineno == 14
  assert api_util.debug_info("test", f, (1., 2.), {"z": 3.},
                             static_argnums=(1,)).arg_names == ("x", "z")


def test_flatten_fun_calls_on_leaves_and_records_the_output_tree():
  args, tree = xjax.tree.flatten(((1., 2.), {"z": 3.}))
  flat, out_tree = api_util.flatten_fun(lu.wrap_init(f), tree)
  with pytest.raises(lu.StoreException, match="Store empty"):  # as JAX
    out_tree()
  assert flat.call_wrapped(*args) == [7.0]
  assert str(out_tree()) == "PyTreeDef({'s': *})"
  with pytest.raises(lu.StoreException, match="Store occupied"):  # one call per flattening
    flat.call_wrapped(*args)
  flat, _ = api_util.flatten_fun(lu.wrap_init(f), tree)
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


# ---------------------------------------------------------------------------------------
# Static and donated arguments, axis specs (values from JAX 0.10.2)

def _wrapped_abc():
  def f(a, b, c):
    return a * 100 + b * 10 + c
  return lu.wrap_init(f, debug_info=api_util.debug_info("t", f, (1, 2, 3), {}))


def test_argnums_partial():
  wf = _wrapped_abc()
  g, dyn = api_util.argnums_partial(wf, (0, 2), (1, 2, 3))
  assert type(g).__name__ == "WrappedFun" and dyn == (1, 3) and g.call_wrapped(7, 9) == 729
  g, dyn = api_util.argnums_partial(wf, -1, (1, 2, 3))
  assert dyn == (3,) and g.call_wrapped(5) == 125
  g, dyn = api_util.argnums_partial(wf, 1, (1, [2], 3), require_static_args_hashable=False)
  assert dyn == ([2],) and g.call_wrapped(4) == 143
  with pytest.raises(ValueError, match=r"must have value greater than or equal to -len\(args\) "
                                       r"and less than len\(args\), but got value 5 for "
                                       r"len\(args\) == 3\."):
    api_util.argnums_partial(wf, 5, (1, 2, 3))
  with pytest.raises(ValueError, match=r"Static argument \(index 1\) of type <class 'list'> "
                                       r"for function f is non-hashable\."):
    api_util.argnums_partial(wf, 0, (1, [2], 3))
  # Equal fixed arguments give equal functions (caches keyed on them hit); 2 and 2.0 differ.
  g1, _ = api_util.argnums_partial(wf, 0, (1, 2, 3))
  g2, _ = api_util.argnums_partial(wf, 0, (5, 2, 3))
  g3, _ = api_util.argnums_partial(wf, 0, (1, 2.0, 3))
  assert g1 == g2 and hash(g1) == hash(g2) and g1 != g3


def test_donation_vector_and_rebase():
  _, tree = xjax.tree_util.tree_flatten(((1, (2, 3), {"k": 4}), {"x": 5, "y": (6, 7)}))
  assert api_util.donation_vector((1,), ("y",), tree) == (False, True, True, False, False,
                                                          True, True)
  args_only = xjax.tree_util.tree_structure((1, (2, 3), 4))
  assert api_util.donation_vector((0, 2), (), args_only, kws=False) == (True, False, False,
                                                                        True)
  assert api_util.rebase_donate_argnums((3, 4), (0, 1)) == (1, 2)
  assert api_util.rebase_donate_argnums((4, 1), ()) == (1, 4)
  assert api_util.rebase_donate_argnums((), (2,)) == ()
  assert api_util.rebase_donate_argnums((0, 3, 5), (1, 4)) == (0, 2, 3)
  with pytest.raises(ValueError, match=r"`static_argnums` \[1\] and `donate_argnums` \[1\] "
                                       r"cannot intersect\."):
    api_util.rebase_donate_argnums((1,), (1,))


def test_flatten_axes():
  tree = xjax.tree_util.tree_structure(((1, 2), {"a": 3, "b": [4, 5]}))
  assert api_util.flatten_axes("vmap in_axes", tree, (0, {"a": None, "b": 1})) == [
      0, 0, None, 1, 1]
  assert api_util.flatten_axes("vmap in_axes", tree, 0) == [0] * 5
  assert api_util.flatten_axes("vmap in_axes", tree, (None, {"a": 2, "b": [0, 1]})) == [
      None, None, 2, 0, 1]
  with pytest.raises(ValueError, match="^vmap in_axes specification must be a tree prefix of "
                                       "the corresponding value;"):
    api_util.flatten_axes("vmap in_axes", tree, (0, 1, 2))
  single = xjax.tree_util.tree_structure(((1, 2),))
  with pytest.raises(ValueError, match="might need to be wrapped in a singleton tuple"):
    api_util.flatten_axes("vmap in_axes", single, (0, 1), tupled_args=True)
