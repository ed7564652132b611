"""Jacobians build and unravel their basis as JAX does, so jaxprs and types match."""
import numpy as np

import xjax
import xjax.numpy as jnp


def test_jacobian_jaxprs_stage_the_basis_and_split_it():
  x = jnp.array([0.3, -1.2, 2.5], jnp.float32)
  fwd = [e.primitive.name for e in xjax.make_jaxpr(xjax.jacfwd(jnp.sin))(x).eqns]
  assert fwd == ["iota", "iota", "add", "eq", "convert_element_type", "split",
                 "convert_element_type", "sin", "cos", "broadcast_in_dim", "mul", "transpose",
                 "split"]  # JAX 0.10.2's
  rev = [e.primitive.name for e in xjax.make_jaxpr(xjax.jacrev(jnp.sin))(x).eqns]
  assert rev == ["sin", "cos", "iota", "iota", "add", "eq", "convert_element_type", "split",
                 "convert_element_type", "broadcast_in_dim", "mul", "split"]


def test_jacobians_of_pytrees_and_argnums():
  x = jnp.array([0.3, -1.2, 2.5], jnp.float32)
  g = lambda d: {"u": d["a"] * d["b"][0], "v": (d["a"] ** 2).sum()}
  m = jnp.arange(6.).reshape(2, 3)
  for jac in (xjax.jacfwd, xjax.jacrev):
    out = jac(g)({"a": x, "b": m})
    np.testing.assert_allclose(out["u"]["a"], np.diag(np.asarray(m[0])))
    np.testing.assert_allclose(out["v"]["a"], 2 * np.asarray(x), rtol=1e-6)
    assert out["u"]["b"].shape == (3, 2, 3) and type(out["u"]["a"].shape[1]) is int
    da, db = jac(lambda a, b: a * b, argnums=(0, 1))(x, x[::-1])
    np.testing.assert_allclose(da, np.diag(np.asarray(x[::-1])))
    np.testing.assert_allclose(db, np.diag(np.asarray(x)))
