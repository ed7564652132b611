"""xjax.ad_checkpoint and checkpoint policies: what reverse mode saves (residual counts and
print_saved_residuals lines as JAX 0.10.2 gives them), gradients unchanged (check_grads,
NumPy), checkpoint_name, and checkpoint under jit / vmap / scan."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.ad_checkpoint import (Offloadable, Recompute, Saveable, checkpoint_name,
                                checkpoint_policies as cp, print_saved_residuals)
from xjax.test_util import check_grads


def _f(W, x):
  y = jnp.sin(W @ x)
  z = checkpoint_name(jnp.cos(y), 'z')
  return jnp.sum(jnp.tanh(W @ z))


W = (np.arange(9, dtype=np.float32) * 0.1).reshape(3, 3)
X = np.arange(3, dtype=np.float32)
# jax.grad(jax.checkpoint(_f), argnums=(0, 1))(W, X) in JAX 0.10.2
GRAD_W = np.array([[0.8519608, 0.42410246, 0.49257278], [0.4606602, 0.22612157, 0.25995076],
                   [0.15837508, 0.3673419, 0.6685736]], np.float32)
GRAD_X = np.array([0.14301582, 0.15317488, 0.16333397], np.float32)

POLICIES = {
    "default": None,
    "nothing_saveable": cp.nothing_saveable,
    "everything_saveable": cp.everything_saveable,
    "dots_saveable": cp.dots_saveable,
    "checkpoint_dots": cp.checkpoint_dots,
    "dots_with_no_batch_dims_saveable": cp.dots_with_no_batch_dims_saveable,
    "checkpoint_dots_with_no_batch_dims": cp.checkpoint_dots_with_no_batch_dims,
    "save_only_these_names": cp.save_only_these_names("z"),
    "save_any_names_but_these": cp.save_any_names_but_these("z"),
    "save_anything_except_these_names": cp.save_anything_except_these_names("z"),
    "save_from_both_policies": cp.save_from_both_policies(cp.dots_saveable,
                                                         cp.save_only_these_names("z")),
    "offload_dot_with_no_batch_dims": cp.offload_dot_with_no_batch_dims("device",
                                                                        "pinned_host"),
    "save_and_offload_only_these_names": cp.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["z"],
        offload_src="device", offload_dst="pinned_host"),
}
# len(make_jaxpr(linearize(checkpoint(_f, policy=p), W, X)[1])(W, X).consts) in JAX 0.10.2
RESIDUALS = {"default": 2, "nothing_saveable": 2, "everything_saveable": 7, "dots_saveable": 4,
             "checkpoint_dots": 4, "dots_with_no_batch_dims_saveable": 4,
             "checkpoint_dots_with_no_batch_dims": 4, "save_only_these_names": 3,
             "save_any_names_but_these": 2, "save_anything_except_these_names": 7,
             "save_from_both_policies": 5, "offload_dot_with_no_batch_dims": 4,
             "save_and_offload_only_these_names": 3}


def _num_residuals(fun, *args):
  _, lin = xjax.linearize(fun, *args)
  return len(xjax.make_jaxpr(lin)(*args).consts)


def test_the_module_has_every_policy_of_jax():
  assert sorted(n for n in vars(cp) if not n.startswith("_")) == sorted([
      "checkpoint_dots", "checkpoint_dots_with_no_batch_dims", "dots_saveable",
      "dots_with_no_batch_dims_saveable", "everything_saveable", "nothing_saveable",
      "offload_dot_with_no_batch_dims", "save_and_offload_only_these_names",
      "save_any_names_but_these", "save_anything_except_these_names",
      "save_from_both_policies", "save_only_these_names"])
  assert xjax.checkpoint_policies is cp
  assert cp.nothing_saveable() is False and cp.everything_saveable() is True
  assert repr(cp.dots_saveable) == "DotsSaveable(only_if_no_batch_dims=False)"
  assert Offloadable("device", "pinned_host").dst == "pinned_host"
  assert repr(Saveable) == "Saveable" and repr(Recompute) == "Recompute"


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_policy_sets_the_residuals_and_keeps_the_gradient(name):
  g = xjax.checkpoint(_f, policy=POLICIES[name])
  assert _num_residuals(g, W, X) == RESIDUALS[name]
  gw, gx = xjax.grad(g, argnums=(0, 1))(W, X)
  np.testing.assert_allclose(gw, GRAD_W, rtol=2e-6)
  np.testing.assert_allclose(gx, GRAD_X, rtol=2e-6)
  gw, gx = xjax.jit(xjax.grad(g, argnums=(0, 1)))(W, X)
  np.testing.assert_allclose(gw, GRAD_W, rtol=2e-6)
  np.testing.assert_allclose(np.asarray(g(W, X)), 1.7992291, rtol=1e-6)


@pytest.mark.parametrize("name", ["default", "everything_saveable", "dots_saveable",
                                  "save_only_these_names"])
def test_check_grads_under_a_policy(name):
  check_grads(xjax.checkpoint(_f, policy=POLICIES[name]), (W, X), order=2,
              modes=["fwd", "rev"])


def _batched_dots(A, B):
  return jnp.sum(jnp.sin(jnp.einsum("bij,bjk->bik", A, B)) @ jnp.ones((3, 3)))


@pytest.mark.parametrize("policy,count", [(None, 2), (cp.dots_saveable, 3),
                                          (cp.dots_with_no_batch_dims_saveable, 2),
                                          (cp.everything_saveable, 4)])
def test_dots_with_batch_dimensions(policy, count):
  A, B = np.ones((2, 3, 3), np.float32), np.full((2, 3, 3), 2, np.float32)
  assert _num_residuals(xjax.checkpoint(_batched_dots, policy=policy), A, B) == count


def test_print_saved_residuals_as_jax(capsys):
  line = _f.__code__.co_firstlineno
  at = lambda k, col: f"{__file__}:{line + k}:{col} (_f)"
  print_saved_residuals(xjax.checkpoint(_f, policy=cp.dots_saveable), W, X)
  assert capsys.readouterr().out.splitlines() == [
      "f32[3,3] from the argument W", "f32[3] from the argument x",
      f"f32[3] output of dot_general from {at(1, 14)}",
      f"f32[3] output of dot_general from {at(3, 26)}"]
  print_saved_residuals(_f, W, X)   # no checkpoint: what reverse mode keeps by default
  assert capsys.readouterr().out.splitlines() == [
      "f32[3,3] from the argument W", "f32[3] from the argument x",
      f"f32[3] output of cos from {at(1, 6)}", f"f32[3] output of sin from {at(2, 22)}",
      f"f32[3] named 'z' from {at(2, 6)}", f"f32[3] output of tanh from {at(3, 17)}",
      f"f32[3] output of sub from {at(3, 17)}"]
  print_saved_residuals(xjax.checkpoint(_f, policy=cp.save_only_these_names("z")), W, X)
  assert capsys.readouterr().out.splitlines()[2:] == [f"f32[3] named 'z' from {at(2, 6)}"]


def _pytree_fun(p, x, *, k):
  return jnp.sum(jnp.sin(p['a'] * x[0]) * k)


def test_print_saved_residuals_names_pytree_and_keyword_arguments(capsys):
  line = _pytree_fun.__code__.co_firstlineno + 1
  print_saved_residuals(_pytree_fun, {"a": jnp.ones(2)}, (jnp.ones(2), 3.0), k=jnp.ones(2))
  assert capsys.readouterr().out.splitlines() == [
      "f32[2] from the argument p['a']", "f32[2] from the argument x[0]",
      "f32[2] from the argument k",
      f"f32[2] output of sin from {__file__}:{line}:17 (_pytree_fun)",
      f"f32[2] output of cos from {__file__}:{line}:17 (_pytree_fun)"]


def test_backward_pass_recomputes_only_what_it_needs():
  jaxpr = xjax.make_jaxpr(xjax.grad(xjax.checkpoint(_f, policy=cp.dots_saveable)))(W, X)
  prims = [e.primitive.name for e in jaxpr.jaxpr.eqns]
  # saved dot outputs are rounded to their precision (as JAX), the backward is one remat2
  assert prims.count("reduce_precision") == 2 and prims.count("remat2") == 1
  remat = jaxpr.jaxpr.eqns[prims.index("remat2")]
  assert remat.params["differentiated"] and remat.params["policy"] is cp.dots_saveable
  inner = [e.primitive.name for e in remat.params["jaxpr"].jaxpr.eqns]
  # (sin of the primal and of cos's derivative; the primal output is not recomputed)
  assert "dot_general" in inner and inner.count("sin") == 2 and "reduce_sum" not in inner


def test_checkpoint_name():
  x = jnp.arange(3.0)
  assert checkpoint_name(x, "a") is not None
  np.testing.assert_array_equal(checkpoint_name(x, "a"), x)
  tree = checkpoint_name({"u": x, "v": (1.0, x)}, "t")
  np.testing.assert_array_equal(tree["v"][1], x)
  jaxpr = xjax.make_jaxpr(lambda v: checkpoint_name(v * 2, "b"))(x)
  assert str(jaxpr).count("name[name=b]") == 1
  np.testing.assert_allclose(xjax.grad(lambda v: jnp.sum(checkpoint_name(v, "a") ** 2))(x),
                             2 * np.arange(3.0))
  np.testing.assert_allclose(xjax.vmap(lambda v: checkpoint_name(v, "a") * v)(x), x * x)
  np.testing.assert_allclose(xjax.jit(lambda v: checkpoint_name(v, "a") + 1)(x), x + 1)
  t, = xjax.linear_transpose(lambda v: checkpoint_name(v, "a"), x)(x)
  np.testing.assert_allclose(t, x)
  check_grads(lambda v: jnp.sin(checkpoint_name(v, "a")), (x,), order=2)


def test_checkpoint_under_jit_vmap_and_scan():
  g = xjax.checkpoint(_f, policy=cp.dots_saveable)
  Ws = np.stack([W, 2 * W, -W])
  loop = np.stack([np.asarray(xjax.grad(_f)(w, X)) for w in Ws])
  np.testing.assert_allclose(xjax.vmap(xjax.grad(g), (0, None))(Ws, X), loop, rtol=2e-6)
  np.testing.assert_allclose(xjax.jit(xjax.vmap(xjax.grad(g), (0, None)))(Ws, X), loop,
                             rtol=2e-6)
  scanned = xjax.grad(lambda ws: lax.scan(lambda c, w: (c + g(w, X), None), 0.0, ws)[0])
  np.testing.assert_allclose(scanned(Ws), loop, rtol=2e-6)
  nested = xjax.checkpoint(lambda w, x: g(w, x) * jnp.sum(xjax.checkpoint(jnp.sin)(x)),
                           policy=cp.everything_saveable)
  check_grads(nested, (W, X), order=2, modes=["rev"], atol=2e-2, rtol=2e-2)


def test_prevent_cse_puts_an_optimization_barrier_before_the_recomputation():
  def text(**kw):
    return xjax.jit(xjax.grad(xjax.checkpoint(_f, **kw))).lower(W, X).as_text()
  assert "stablehlo.optimization_barrier" in text()
  assert "stablehlo.optimization_barrier" not in text(prevent_cse=False)
  jaxpr = xjax.make_jaxpr(xjax.checkpoint(lambda a, b: a * b, prevent_cse=(True, False)))(
      1.0, 2.0)
  assert jaxpr.jaxpr.eqns[0].params["prevent_cse"] == (True, False)
  assert xjax.grad(xjax.checkpoint(lambda a, b: a * b, prevent_cse=(True, False)))(
      1.0, 2.0) == 2.0


def test_static_argnums_and_keyword_arguments():
  f = xjax.checkpoint(lambda x, n: x if n > 0 else -x, static_argnums=1)
  assert xjax.grad(f)(1.0, 2) == 1.0 and xjax.grad(f)(1.0, -2) == -1.0
  f = xjax.checkpoint(lambda x, n: x if n > 0 else -x, static_argnums=(-1,))
  assert xjax.grad(f)(1.0, -2) == -1.0
  f = xjax.checkpoint(lambda x, n: x * len(n), static_argnums=1)   # unhashable static
  assert xjax.grad(f)(1.0, [2.0, 3.0]) == 2.0 and xjax.grad(f)(1.0, [2.0]) == 1.0
  f = xjax.checkpoint(lambda x, *, k=2.0: jnp.sin(x) * k)
  np.testing.assert_allclose(f(1.0, k=3.0), 3 * np.sin(1.0), rtol=1e-6)
  np.testing.assert_allclose(xjax.grad(f)(1.0, k=3.0), 3 * np.cos(1.0), rtol=1e-6)
  assert xjax.checkpoint is xjax.remat


def test_bad_input():
  with pytest.raises(TypeError, match="must be an int, tuple of ints or, bool"):
    xjax.checkpoint(lambda x, y: x, static_argnums=[1])(1.0, 2.0)
  with pytest.raises(ValueError, match="can only take integer values"):
    xjax.checkpoint(lambda x, y: x, static_argnums=5)(1.0, 2.0)
  with pytest.raises(TypeError, match="prevent_cse must be a bool or tuple of bools"):
    xjax.checkpoint(lambda x: x, prevent_cse=1)
  with pytest.raises(NotImplementedError, match="use `static_argnums`"):
    xjax.checkpoint(lambda x: x, concrete=True)
  with pytest.raises(TypeError, match="Value returned by a remat policy should be a bool"):
    xjax.grad(xjax.checkpoint(jnp.sin, policy=lambda *_, **__: 3))(1.0)
  with pytest.raises(xjax.errors.TracerBoolConversionError, match="static_argnums"):
    xjax.checkpoint(lambda x, n: x if n > 0 else -x)(1.0, 2)
  with pytest.raises(ValueError, match="should be a boolean"):
    xjax.grad(xjax.checkpoint(_f, policy=cp.save_from_both_policies(
        cp.dots_saveable, cp.offload_dot_with_no_batch_dims("device", "pinned_host"))))(W, X)
  with pytest.raises(ValueError, match="should not intersect"):
    cp.save_and_offload_only_these_names(names_which_can_be_saved=["a"],
                                         names_which_can_be_offloaded=["a"],
                                         offload_src="device", offload_dst="pinned_host")
  with pytest.raises(AttributeError, match="use jax.checkpoint instead"):
    xjax.ad_checkpoint.checkpoint  # noqa: B018 (removed from this module in JAX 0.10)
  with pytest.raises(AttributeError, match="use jax.remat instead"):
    xjax.ad_checkpoint.remat  # noqa: B018


def test_debug_prints_run_again_with_the_recomputation(capsys):
  def g(x):
    xjax.debug.print("x={x}", x=x)
    return jnp.sin(x)
  xjax.grad(xjax.checkpoint(g))(1.0)
  assert capsys.readouterr().out == "x=1.0\nx=1.0\n"   # as JAX: forward and backward


# custom_vjp(optimize_remat=True): remat_opt_p

@xjax.custom_vjp
def _sin_with_rule(x):
  return jnp.sin(x)


_sin_with_rule.defvjp(lambda x: (jnp.sin(x), (jnp.cos(x) * 2.0,)),
                      lambda res, g: (res[0] * g / 2.0,), optimize_remat=True)


def test_optimize_remat_forward_pass_runs_the_function():
  g = xjax.checkpoint(lambda x: _sin_with_rule(x) * 3.0)
  want = 3 * np.cos(1.0)   # JAX 0.10.2: 1.6209068
  np.testing.assert_allclose(xjax.grad(g)(1.0), want, rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(xjax.grad(g))(1.0), want, rtol=1e-6)
  np.testing.assert_allclose(xjax.vmap(xjax.grad(g))(jnp.arange(3.0)),
                             3 * np.cos(np.arange(3.0)), rtol=1e-6)
  jaxpr = xjax.make_jaxpr(xjax.grad(g))(1.0).jaxpr
  forward, backward = jaxpr.eqns[0], jaxpr.eqns[-1].params["jaxpr"].jaxpr.eqns[0]
  assert forward.primitive is xjax.custom_derivatives.remat_opt_p
  assert [e.primitive.name for e in forward.params["fwd_jaxpr"].jaxpr.eqns] == ["sin"]
  assert [e.primitive.name for e in backward.params["fwd_jaxpr"].jaxpr.eqns] == ["cos", "mul"]
  np.testing.assert_allclose(xjax.grad(lambda x: _sin_with_rule(x) * 3.0)(1.0), want,
                             rtol=1e-6)
  with pytest.raises(NotImplementedError, match="symbolic zeros"):
    _sin_with_rule.defvjp(lambda x: (x, ()), lambda r, g: (g,), symbolic_zeros=True,
                          optimize_remat=True)


def test_checkpoint_passes_traced_inputs_through_its_equation_as_jax():
  """A traced input that the body returns unchanged is the remat2 equation's output in the
  jaxpr (JAX 0.10.2's text); under eager jvp/linearize, a Python number passed through
  comes back typed, as JAX's; concrete inputs come back as given."""
  text = str(xjax.make_jaxpr(xjax.checkpoint(lambda a, b: (a, b * 2)))(1., 2.))
  assert text.startswith("{ lambda ; a:f32[] b:f32[]. let\n    c:f32[] d:f32[] = remat2[")
  assert text.endswith("    ] a b\n  in (c, d) }")
  ident = xjax.checkpoint(lambda a: a)
  assert [type(v).__name__ for v in xjax.jvp(ident, (0.5,), (1.,))] == ["TypedFloat"] * 2
  assert type(xjax.linearize(ident, 0.5)[0]).__name__ == "TypedFloat"
  x = jnp.ones(2)
  assert ident(x) is x and xjax.vmap(ident)(x) is x and xjax.jvp(ident, (x,), (x,))[0] is x
