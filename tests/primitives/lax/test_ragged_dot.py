"""lax.ragged_dot / ragged_dot_general: values against NumPy loops in all three modes,
derivatives by finite differences (and as JAX 0.10.2's for ragged_dot), vmap against loops,
jaxprs and errors as the reference."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.test_util import check_grads

RDN = lax.RaggedDotDimensionNumbers
rng = np.random.RandomState(0)
LHS = rng.randn(6, 4).astype(np.float32)
RHS = rng.randn(3, 4, 5).astype(np.float32)
GS = np.array([2, 1, 2], np.int32)


def _bounds(gs):
  ends = np.cumsum(gs)
  return list(zip(ends - gs, ends))


def ragged_rows(lhs, rhs, gs):
  """Mode 1 oracle: [m, k] x [g, k, n] -> [m, n]."""
  out = np.zeros((lhs.shape[0], rhs.shape[2]), np.float32)
  for i, (a, b) in enumerate(_bounds(gs)):
    out[a:b] = lhs[a:b] @ rhs[i]
  return out


def ragged_contraction(lhs, rhs, gs):
  """Mode 2 oracle: [m, k] x [k, n] -> [g, m, n]."""
  return np.stack([lhs[:, a:b] @ rhs[a:b] for a, b in _bounds(gs)])


def test_ragged_dot_values_as_reference():
  out = lax.ragged_dot(jnp.asarray(LHS), jnp.asarray(RHS), GS)
  assert out.shape == (6, 5) and out.dtype == np.float32
  np.testing.assert_allclose(out, ragged_rows(LHS, RHS, GS), rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(out[:, :2], [[3.573997735977173, -4.700244903564453],
                                          [2.5181350708007812, -2.5602877140045166],
                                          [-0.5663295388221741, -1.238702654838562],
                                          [0.33867406845092773, -0.9098008871078491],
                                          [0.33242127299308777, 0.03088611364364624],
                                          [0.0, 0.0]], rtol=3e-6)  # (last bits vary by CPU)
  assert lax.ragged_dot(LHS, RHS, np.array([1, 1, 1])).tolist()[3:] == [[0.] * 5] * 3
  assert lax.ragged_dot(LHS.astype(jnp.bfloat16), RHS, GS).dtype == np.float32
  assert lax.ragged_dot(LHS, RHS, GS, preferred_element_type=np.float16).dtype == np.float16
  assert lax.ragged_dot(LHS.astype(np.int32), RHS.astype(np.int32), GS).dtype == np.int32


def test_batched_noncontracting_with_per_batch_groups():
  lhs = rng.randn(2, 6, 4).astype(np.float32)
  rhs = rng.randn(3, 2, 4, 5).astype(np.float32)
  gs = np.array([[2, 1, 3], [0, 4, 1]], np.int32)
  dn = RDN((((2,), (2,)), ((0,), (1,))), (1,), (0,))
  out = lax.ragged_dot_general(lhs, rhs, gs, dn)
  want = np.stack([ragged_rows(lhs[b], rhs[:, b], gs[b]) for b in range(2)])
  np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_contracting_and_batch_modes():
  lhs = rng.randn(3, 6).astype(np.float32)
  rhs = rng.randn(6, 2).astype(np.float32)
  out = lax.ragged_dot_general(lhs, rhs, GS, RDN((((1,), (0,)), ((), ())), (1,), ()))
  assert out.shape == (3, 3, 2)
  np.testing.assert_allclose(out, ragged_contraction(lhs, rhs, GS), rtol=1e-5, atol=1e-6)
  lb, rb = rng.randn(2, 3, 6).astype(np.float32), rng.randn(2, 6, 2).astype(np.float32)
  gs = np.array([[1, 5, 0], [3, 3, 0]], np.int32)
  out = lax.ragged_dot_general(lb, rb, gs, RDN((((2,), (1,)), ((0,), (0,))), (2,), ()))
  want = np.stack([ragged_contraction(lb[b], rb[b], gs[b]) for b in range(2)], axis=1)
  np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
  out = lax.ragged_dot_general(lb, rb, np.array([1, 1]), RDN((((2,), (1,)), ((0,), (0,))),
                                                            (0,), ()))
  np.testing.assert_allclose(out, lb @ rb, rtol=1e-5, atol=1e-6)


def test_gradients():
  g_lhs, g_rhs = xjax.grad(lambda a, b: (lax.ragged_dot(a, b, GS) ** 2).sum(),
                           argnums=(0, 1))(LHS, RHS)
  np.testing.assert_allclose(g_lhs[:2], [
      [49.08164978027344, -9.745426177978516, -20.839094161987305, 47.059295654296875],
      [30.93698501586914, -12.349838256835938, 1.5637872219085693, 10.309260368347168]],
      rtol=1e-5)
  np.testing.assert_allclose(g_rhs[2, :2], [
      [1.508814811706543, -1.2924929857254028, -12.466117858886719, 0.23016004264354706,
       -1.9347355365753174],
      [-0.05398160219192505, -0.23407314717769623, 1.1187946796417236, 0.14448799192905426,
       -0.4090748727321625]], rtol=1e-5)
  check_grads(lambda a, b: lax.ragged_dot(a, b, GS), (LHS, RHS), 2, eps=1e-2)
  contracting = RDN((((1,), (0,)), ((), ())), (1,), ())
  check_grads(lambda a, b: lax.ragged_dot_general(a, b, GS, contracting),
              (rng.randn(3, 5).astype(np.float32), rng.randn(5, 2).astype(np.float32)), 2,
              eps=1e-2)
  batch = RDN((((2,), (1,)), ((0,), (0,))), (0,), ())
  check_grads(lambda a, b: lax.ragged_dot_general(a, b, np.array([1, 1]), batch),
              (rng.randn(2, 3, 4).astype(np.float32), rng.randn(2, 4, 2).astype(np.float32)),
              1, eps=1e-2)


def test_grad_jaxpr_stays_ragged_as_reference():
  text = str(xjax.make_jaxpr(xjax.grad(lambda a, b: lax.ragged_dot(a, b, GS).sum(),
                                       argnums=(0, 1)))(LHS, RHS))
  assert text.count("ragged_dot_general[") == 3
  assert ("ragged_dot_dimension_numbers=RaggedDotDimensionNumbers(dot_dimension_numbers="
          "(((0,), (0,)), ((), ())), lhs_ragged_dimensions=(0,), rhs_group_dimensions=())"
          in text)


def test_jaxpr_as_reference():
  assert str(xjax.make_jaxpr(lax.ragged_dot)(LHS, RHS, GS)) == """{ lambda ; a:f32[6,4] b:f32[3,4,5] c:i32[3]. let
    d:f32[6,5] = ragged_dot_general[
      group_offset=None
      out_sharding=None
      precision=None
      preferred_element_type=None
      ragged_dot_dimension_numbers=RaggedDotDimensionNumbers(dot_dimension_numbers=(((1,), (1,)), ((), ())), lhs_ragged_dimensions=(0,), rhs_group_dimensions=(0,))
    ] a b c
  in (d,) }"""


def test_vmap_against_loops():
  lhs2 = np.stack([LHS, 2 * LHS])
  rhs2 = np.stack([RHS, RHS[::-1]], axis=3)
  gs2 = np.array([[2, 1, 2], [0, 5, 1]], np.int32)
  f = lambda a, b, g: lax.ragged_dot(a, b, g)
  for in_axes, args in [((0, None, None), (lhs2, RHS, GS)),
                        ((None, 3, None), (LHS, rhs2, GS)),
                        ((0, None, 0), (lhs2, RHS, gs2)),
                        ((0, 3, 0), (lhs2, rhs2, gs2))]:
    got = xjax.vmap(f, in_axes=in_axes)(*args)
    for i in range(2):
      pick = [x if ax is None else np.take(x, i, axis=ax) for x, ax in zip(args, in_axes)]
      np.testing.assert_allclose(got[i], ragged_rows(*pick), rtol=1e-5, atol=1e-6)
  contracting = RDN((((1,), (0,)), ((), ())), (1,), ())
  a = rng.randn(2, 3, 6).astype(np.float32)
  got = xjax.vmap(lambda a: lax.ragged_dot_general(a, a[0, :, None], GS, contracting))(a)
  for i in range(2):
    np.testing.assert_allclose(got[i], ragged_contraction(a[i], a[i, 0, :, None], GS),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("args,exc,match", [
    ((LHS, RHS, GS.astype(np.float32)), TypeError, "group_sizes.dtype is subtype of np.integer"),
    ((LHS, RHS, np.array([1, 2])), TypeError, "expected rhs group dimension size to be 2, got 3"),
    ((LHS, RHS, np.int32(3)), TypeError, "expected rank of group_sizes to be >=1"),
    ((LHS, RHS[:, :3], GS), TypeError, "contracting dimensions to have the same shape"),
])
def test_bad_input(args, exc, match):
  with pytest.raises(exc, match=match):
    lax.ragged_dot(*args)


def test_group_offset_unsupported_as_jax():
  with pytest.raises(NotImplementedError, match="group_offset"):
    lax.ragged_dot(LHS, RHS, GS, group_offset=jnp.array([0]))
