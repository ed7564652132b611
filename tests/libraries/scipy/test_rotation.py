"""jax.scipy.spatial.transform: Rotation and Slerp against scipy.spatial.transform, as
pytrees through jit, vmap and grad, with JAX 0.10.2's dtypes and errors."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation as SR
from scipy.spatial.transform import Slerp as SSlerp

import xjax
import xjax.numpy as jnp
from xjax import random
from xjax.scipy.spatial.transform import Rotation as R
from xjax.scipy.spatial.transform import Slerp
from xjax.test_util import check_grads

from tests.checking import check

RNG = np.random.default_rng(0)
Q = RNG.standard_normal((5, 4)).astype(np.float32)
SEQS = ["xyz", "ZXY", "zxz", "XYX", "yzy", "zyx", "XZY"]
TOL = dict(rtol=2e-5, atol=2e-5)


def test_conversions_match_scipy():
  r, s = R.from_quat(Q), SR.from_quat(Q.astype(np.float64))
  check(r.as_quat(), s.as_quat(), **TOL)
  check(r.as_quat(canonical=True), s.as_quat(canonical=True), **TOL)
  check(r.as_quat(scalar_first=True), s.as_quat(scalar_first=True), **TOL)
  check(r.as_matrix(), s.as_matrix(), **TOL)
  check(r.as_rotvec(), s.as_rotvec(), **TOL)
  check(r.as_rotvec(degrees=True), s.as_rotvec(degrees=True), rtol=1e-4, atol=1e-4)
  check(r.as_mrp(), s.as_mrp(), **TOL)
  check(r.magnitude(), s.magnitude(), **TOL)
  check(r.inv().as_quat(), s.inv().as_quat(), **TOL)
  for back in (R.from_matrix(s.as_matrix()), R.from_rotvec(s.as_rotvec()),
               R.from_mrp(s.as_mrp()), R.from_rotvec(s.as_rotvec(degrees=True), degrees=True)):
    check(back.as_matrix(), s.as_matrix(), rtol=1e-4, atol=1e-4)
  # Each branch of Shepperd's method (largest of the diagonal or the trace).
  for m in (np.eye(3), np.diag([1., -1, -1]), np.diag([-1., 1, -1]), np.diag([-1., -1, 1])):
    check(R.from_matrix(m).as_matrix(), m, rtol=1e-6, atol=1e-6)
  check(R.from_rotvec(np.zeros(3)).as_quat(), [0, 0, 0, 1], **TOL)
  check(R.from_rotvec(np.array([1e-4, 0, 0])).as_rotvec(), [1e-4, 0, 0], rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("seq", SEQS)
def test_euler_angles_match_scipy(seq):
  r, s = R.from_quat(Q), SR.from_quat(Q.astype(np.float64))
  check(r.as_euler(seq), s.as_euler(seq), rtol=1e-4, atol=1e-4)
  check(r.as_euler(seq, degrees=True), s.as_euler(seq, degrees=True), rtol=1e-2, atol=1e-2)
  angles = s.as_euler(seq)
  check(R.from_euler(seq, angles.astype(np.float32)).as_matrix(), s.as_matrix(), rtol=1e-5,
        atol=1e-5)
  check(R.from_euler(seq, np.rad2deg(angles), degrees=True).as_matrix(), s.as_matrix(), rtol=1e-4,
        atol=1e-4)


def test_gimbal_lock_and_elementary_rotations():
  # The values JAX 0.10.2 gives at gimbal lock (SciPy gives the same and warns).
  check(R.from_euler("xyz", np.array([0.3, np.pi / 2, 0.2], np.float32)).as_euler("xyz"),
        [0.1, 1.5708, 0.0], rtol=1e-4, atol=1e-4)
  check(R.from_euler("zxz", np.array([0.3, 0., 0.2], np.float32)).as_euler("zxz"), [0.5, 0., 0.],
        rtol=1e-5, atol=1e-5)
  check(R.from_euler("ZXZ", np.array([0.3, np.pi, 0.2], np.float32)).as_euler("ZXZ"),
        [-2.84159, 3.14159, -2.94159], rtol=1e-4, atol=1e-4)
  r = R.from_euler("z", 90, degrees=True)
  assert r.single and r.quat.dtype == np.float32 and not r.quat.weak_type
  check(r.as_rotvec(), [0, 0, np.pi / 2], **TOL)
  check(R.from_euler("xy", np.array([30., 40.]), degrees=True).as_quat(),
        SR.from_euler("xy", [30, 40], degrees=True).as_quat(), **TOL)


def test_composition_application_and_indexing():
  r, s = R.from_quat(Q), SR.from_quat(Q.astype(np.float64))
  v = np.arange(15, dtype=np.float32).reshape(5, 3)
  check(r.apply(v[0]), s.apply(v[0]), rtol=1e-4, atol=1e-4)
  check(r.apply(v), s.apply(v), rtol=1e-4, atol=1e-4)
  check(r.apply(v, inverse=True), s.apply(v, inverse=True), rtol=1e-4, atol=1e-4)
  check(r[0].apply(v), s[0].apply(v), rtol=1e-4, atol=1e-4)
  check((r * r[::-1]).as_quat(), (s * s[::-1]).as_quat(), **TOL)
  check((r[0] * r).as_quat(), (s[0] * s).as_quat(), **TOL)
  assert len(r) == 5 and r[1:3].quat.shape == (2, 4)
  check(R.concatenate([r, r[:2]]).as_quat(), SR.concatenate([s, s[:2]]).as_quat(), **TOL)
  with pytest.raises(TypeError, match="not subscriptable"):
    r[0][0]
  with pytest.raises(TypeError, match="has no len"):
    len(r[0])


def test_mean_identity_random():
  r, s = R.from_quat(Q), SR.from_quat(Q.astype(np.float64))
  check(np.abs(r.mean().as_quat()), np.abs(s.mean().as_quat()), rtol=1e-4, atol=1e-4)
  w = np.arange(1., 6.)
  check(np.abs(r.mean(w).as_quat()), np.abs(s.mean(w).as_quat()), rtol=1e-4, atol=1e-4)
  with pytest.raises(ValueError, match="1 dimensional"):
    r.mean(np.ones((5, 1)))
  with pytest.raises(ValueError, match="number of values equal to number of rotations"):
    r.mean(np.ones(4))
  ident = R.identity()
  assert ident.quat.dtype == np.float32
  check(ident.as_matrix(), np.eye(3), **TOL)
  assert R.identity(3).quat.shape == (3, 4)
  rnd = R.random(random.key(0), 1000)
  check(jnp.linalg.norm(rnd.quat, axis=-1), np.ones(1000), rtol=1e-5, atol=1e-5)
  # Uniform over SO(3): the mean rotation matrix vanishes.
  assert np.abs(np.asarray(rnd.as_matrix()).mean(0)).max() < 0.1
  assert R.random(random.key(1)).single


def test_bad_euler_sequences():
  for seq, match in (("xyzx", "upto 3 characters"), ("xYz", "from \\['x', 'y', 'z'\\]"),
                     ("xxz", "consecutive axes")):
    with pytest.raises(ValueError, match=match):
      R.from_euler(seq, np.zeros(len(seq)))
  with pytest.raises(ValueError, match="Expected 3 axes"):
    R.from_quat(Q).as_euler("xy")
  with pytest.raises(ValueError, match="entries in their last dimension"):
    R.from_euler("xy", np.zeros(3))


def test_slerp_matches_scipy():
  angles = np.array([[90, 0, 0], [0, 45, 0], [0, 0, -30]])
  keys = R.from_euler("zxy", angles, degrees=True)
  skeys = SR.from_euler("zxy", angles, degrees=True)
  slerp, sslerp = Slerp.init([0, 1, 2], keys), SSlerp([0, 1, 2], skeys)
  t = np.array([0, 0.5, 1, 1.5, 2], np.float32)
  check(slerp(t).as_quat(), sslerp(t).as_quat(), rtol=1e-5, atol=1e-5)
  check(slerp(t).as_euler("zxy")[1], [0.85309029, 0.38711953, 0.17768645],  # JAX's
        rtol=1e-5, atol=1e-5)
  one = slerp(0.25)
  assert one.single
  check(one.as_quat(), sslerp(0.25).as_quat(), rtol=1e-5, atol=1e-5)
  with pytest.raises(ValueError, match="equal to number of timestamps"):
    Slerp.init([0, 1], keys)
  with pytest.raises(ValueError, match="at least 2 rotations"):
    Slerp.init([0], keys[0])
  with pytest.raises(TypeError, match="must be a `Rotation`"):
    Slerp.init([0, 1], np.zeros((2, 4)))
  with pytest.raises(ValueError, match="at most 1-dimensional"):
    slerp(np.zeros((2, 2)))


def test_pytrees_under_jit_vmap_grad():
  r = R.from_quat(Q)
  check(xjax.jit(lambda r: r.as_matrix())(r), r.as_matrix(), **TOL)
  out = xjax.jit(lambda r: r.inv())(r)
  assert isinstance(out, R)
  check(out.quat, r.inv().quat, **TOL)
  rv = xjax.vmap(lambda q: R.from_quat(q).as_rotvec())(Q)
  check(rv, r.as_rotvec(), **TOL)
  keys = R.from_euler("zxy", np.array([[90., 0, 0], [0, 45, 0], [0, 0, -30]]), degrees=True)
  slerp = Slerp.init([0., 1, 2], keys)
  check(xjax.jit(lambda s, t: s(t).quat)(slerp, np.array([0.3, 1.7], np.float32)),
        slerp(np.array([0.3, 1.7], np.float32)).quat, **TOL)
  check_grads(lambda q: R.from_quat(q).as_rotvec(), (Q[0].astype(np.float32),), 1,
              atol=2e-2, rtol=2e-2)
  check_grads(lambda a: R.from_euler("xyz", a).as_matrix(),
              (np.array([0.1, 0.2, 0.3], np.float32),), 1, atol=2e-2, rtol=2e-2)
  # As JAX 0.10.2's: the gradient at the zero rotation vector is NaN (the angle is the
  # square root of the squared norm); values there are exact.
  g = xjax.grad(lambda v: R.from_rotvec(v).as_quat()[0])(np.zeros(3, np.float32))
  assert np.isnan(np.asarray(g)).all()
  check(R.from_rotvec(np.zeros(3, np.float32)).as_quat(), [0, 0, 0, 1], **TOL)
  # JAX 0.10.2's bits for a Slerp (the angle a dot product's square root)
  rv = Slerp.init(jnp.array([0., 1.]), R.from_rotvec(jnp.array([[0., 0., 0.], [0., 0., np.pi / 2]]))
                  )(jnp.array([0., 0.25, 0.5, 1.])).as_rotvec()
  np.testing.assert_array_equal(np.asarray(rv)[:, 2].view(np.uint32),
                                [0, 1053364190, 1061752798, 1070141405])


def test_composition_bits_are_jaxs():
  # JAX 0.10.2's bits: the scalar part subtracts the products one by one.
  rng = np.random.RandomState(1)
  rng.randn(36)
  b = rng.randn(6).astype(np.float32)
  q = (R.from_rotvec(b[:3]) * R.from_rotvec(b[3:])).as_quat()
  np.testing.assert_array_equal(np.asarray(q).view(np.uint32),
                                [3191474111, 1034293207, 1052416085, 1063838677])
