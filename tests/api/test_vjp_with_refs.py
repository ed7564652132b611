"""``jax.ad`` and ``vjp(...)[1].with_refs``: cotangents returned, accumulated into refs or
not wanted, against values taken from JAX 0.10.2."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

X, Y = jnp.array([1., 2.]), jnp.array([3., 4.])
DX = [1.6209068, -1.6645874]          # d/dx sum(sin(x) * y) at X, Y
DY = [0.84147096, 0.9092974]          # d/dy


def _f(x, y):
  return jnp.sin(x) * y


def test_markers_as_jax():
  ad = xjax.ad
  assert [repr(c()) for c in (ad.GradValue, ad.GradRef, ad.DontWant, ad.DidntWant)] == [
      "GradValue()", "GradRef()", "DontWant()", "DidntWant()"]
  assert ad.GradRef() == ad.GradRef() and hash(ad.DontWant()) == hash(ad.DontWant())
  # GradRef and DidntWant (what results hold) are pytree nodes without leaves
  assert xjax.tree_util.tree_leaves((ad.GradRef(), ad.DidntWant())) == []
  assert xjax.tree_util.tree_leaves((ad.GradValue(), ad.DontWant())) == [ad.GradValue(),
                                                                       ad.DontWant()]


def test_with_refs_accumulates_into_refs():
  _, f_vjp = xjax.vjp(_f, X, Y)
  ref = xjax.new_ref(jnp.zeros(2))
  bwd = f_vjp.with_refs(ref, xjax.ad.DontWant())
  assert bwd(jnp.ones(2)) == (xjax.ad.GradRef(), xjax.ad.DidntWant())
  np.testing.assert_allclose(ref[...], DX, rtol=1e-6)
  bwd(jnp.ones(2))  # accumulates again
  np.testing.assert_allclose(ref[...], [3.2418137, -3.3291748], rtol=1e-6)
  gx, marker = f_vjp.with_refs(xjax.ad.GradValue(), ref)(jnp.ones(2))
  np.testing.assert_allclose(gx, DX, rtol=1e-6)
  assert marker == xjax.ad.GradRef()
  np.testing.assert_allclose(ref[...], [4.0832844, -2.4198773], rtol=1e-6)
  gx, gy = f_vjp.with_refs(xjax.ad.GradValue(), xjax.ad.GradValue())(jnp.ones(2))
  np.testing.assert_allclose(gx, DX, rtol=1e-6)
  np.testing.assert_allclose(gy, DY, rtol=1e-6)
  assert f_vjp.with_refs(xjax.ad.DontWant(), xjax.ad.DontWant())(jnp.ones(2)) == (
      xjax.ad.DidntWant(), xjax.ad.DidntWant())


def test_with_refs_pytrees_ints_and_zeros():
  _, g_vjp = xjax.vjp(lambda d: d["a"] * 2 + d["b"], {"a": X, "b": X})
  ra = xjax.new_ref(jnp.ones(2))
  (out,) = g_vjp.with_refs({"a": ra, "b": xjax.ad.GradValue()})(jnp.ones(2))
  assert out["a"] == xjax.ad.GradRef()
  np.testing.assert_array_equal(out["b"], [1., 1.])
  np.testing.assert_array_equal(ra[...], [3., 3.])
  _, h_vjp = xjax.vjp(lambda x, n: x * n, X, 3)
  gx, gn = h_vjp.with_refs(xjax.ad.GradValue(), xjax.ad.DontWant())(jnp.ones(2))
  np.testing.assert_array_equal(gx, [3., 3.])
  assert gn == xjax.ad.DidntWant()
  _, k_vjp = xjax.vjp(lambda x, y: x * 2, X, X)   # y's cotangent is zero
  rr = xjax.new_ref(jnp.full(2, 5.))
  gx, marker = k_vjp.with_refs(xjax.ad.GradValue(), rr)(jnp.ones(2))
  np.testing.assert_array_equal(gx, [2., 2.])
  np.testing.assert_array_equal(rr[...], [5., 5.])
  _, a_vjp, aux = xjax.vjp(lambda x: (x.sum(), 7), X, has_aux=True)
  assert a_vjp.with_refs(xjax.ad.DontWant())(1.) == (xjax.ad.DidntWant(),) and aux == 7


def test_with_refs_under_jit():
  @xjax.jit
  def step(x, r):
    _, vjp = xjax.vjp(lambda x: (x ** 2).sum(), x)
    return vjp.with_refs(r)(1.)

  ref = xjax.new_ref(jnp.zeros(2))
  assert step(X, ref) == (xjax.ad.GradRef(),)
  np.testing.assert_array_equal(ref[...], [2., 4.])
  step(X, ref)
  np.testing.assert_array_equal(ref[...], [4., 8.])


def test_errors():
  _, f_vjp = xjax.vjp(_f, X, Y)
  ct = jnp.ones(2)
  # JAX raises a bare Exception for a structure that does not match the primals
  for bad in [(xjax.ad.DontWant(),) * 3, ((xjax.ad.DontWant(), xjax.ad.DontWant()),),
              (xjax.ad.GradRef(), xjax.ad.DontWant()), (None, xjax.ad.DontWant())]:
    with pytest.raises(Exception, match="with_refs takes"):
      f_vjp.with_refs(*bad)(ct)
  with pytest.raises(ValueError, match=r"Invalid shape for `addupdate`. Ref shape: \(3,\)"):
    f_vjp.with_refs(xjax.new_ref(jnp.zeros(3)), xjax.ad.DontWant())(ct)
  with pytest.raises(ValueError, match="Invalid dtype for `addupdate`. Ref dtype: int32"):
    f_vjp.with_refs(xjax.new_ref(jnp.zeros(2, jnp.int32)), xjax.ad.DontWant())(ct)
  _, h_vjp = xjax.vjp(lambda x: x * 2, jnp.ones(2, jnp.float16))
  with pytest.raises(ValueError, match="Invalid dtype for `addupdate`. Ref dtype: float32"):
    h_vjp.with_refs(xjax.new_ref(jnp.zeros(2)))(jnp.ones(2, jnp.float16))
