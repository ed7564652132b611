"""``jax.scipy.spatial.transform``: 3-D rotations held as unit quaternions ``(x, y, z, w)``
(``Rotation``) and spherical linear interpolation between them (``Slerp``).

Both are NamedTuples, hence pytrees: they pass through ``jit``, ``vmap`` and ``grad``.  A
rotation's quaternion has shape ``(4,)`` (one rotation) or ``(N, 4)``; the conversions
broadcast over leading dimensions.
"""
from __future__ import annotations

import re
import typing

import numpy as np

from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy import linalg as jnp_linalg
from xjax._src.libraries.numpy.functional import core_dimensions
from xjax._src.libraries.random.continuous import normal

_AXES = {"x": 0, "y": 1, "z": 2}


def _check_seq(seq: str, lengths: tuple[int, ...]) -> tuple[bool, list[int]]:
  """``(extrinsic, axis indices)`` of an Euler sequence such as ``"xyz"`` or ``"ZXZ"``."""
  if len(seq) not in lengths:
    if lengths == (3,):
      raise ValueError(f"Expected 3 axes, got {seq}.")
    raise ValueError(f"Expected axis specification to be a non-empty string of upto 3 "
                     f"characters, got {seq}")
  intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
  extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
  if not (intrinsic or extrinsic):
    raise ValueError(f"Expected axes from `seq` to be from ['x', 'y', 'z'] or "
                     f"['X', 'Y', 'Z'], got {seq}")
  if any(a == b for a, b in zip(seq, seq[1:])):
    raise ValueError(f"Expected consecutive axes to be different, got {seq}")
  return extrinsic, [_AXES[a] for a in seq.lower()]


def _norm(v):
  # (a dot product per vector, as JAX's: its rounding is the dot's)
  return jnp.sqrt(jnp.vectorize(lambda u: jnp.dot(u, u), signature="(n)->()")(v))


def _normalized(quat):
  return quat / _norm(quat)[..., None]


def _compose(p, q):
  """The quaternion product ``p q`` (rotation ``q`` first, then ``p``)."""
  pv, pw, qv, qw = p[..., :3], p[..., 3:], q[..., :3], q[..., 3:]
  vec = pw * qv + qw * pv + jnp.cross(pv, qv)
  w = pw * qw   # (the products subtracted one by one, as JAX's)
  for i in range(3):
    w = w - p[..., i:i + 1] * q[..., i:i + 1]
  return jnp.concatenate([vec, w], axis=-1)


def _elementary(axis: int, angle):
  parts = [jnp.zeros_like(angle)] * 3 + [jnp.cos(angle / 2)]
  parts[axis] = jnp.sin(angle / 2)
  return jnp.stack(parts, axis=-1)


def _matrix(quat):
  x, y, z, w = (quat[..., i] for i in range(4))
  x2, y2, z2, w2 = x * x, y * y, z * z, w * w
  xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
  rows = [[x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw)],
          [2 * (xy + zw), -x2 + y2 - z2 + w2, 2 * (yz - xw)],
          [2 * (xz - yw), 2 * (yz + xw), -x2 - y2 + z2 + w2]]
  return jnp.stack([jnp.stack(r, axis=-1) for r in rows], axis=-2)


def _from_matrix(m):
  """Shepperd's method: build the quaternion from the largest of the diagonal and trace."""
  diag = [m[..., i, i] for i in range(3)]
  trace = diag[0] + diag[1] + diag[2]
  candidates = []
  for i in range(3):
    j, k = (i + 1) % 3, (i + 2) % 3
    q = [None] * 4
    q[i] = 1 - trace + 2 * m[..., i, i]
    q[j] = m[..., j, i] + m[..., i, j]
    q[k] = m[..., k, i] + m[..., i, k]
    q[3] = m[..., k, j] - m[..., j, k]
    candidates.append(jnp.stack(q, axis=-1))
  candidates.append(jnp.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                               m[..., 1, 0] - m[..., 0, 1], 1 + trace], axis=-1))
  choice = jnp.argmax(jnp.stack(diag + [trace], axis=-1), axis=-1)[..., None]
  quat = jnp.select([choice == c for c in range(4)], candidates)
  return _normalized(quat)


def _from_rotvec(rotvec, degrees: bool):
  rotvec = jnp.deg2rad(rotvec) if degrees else rotvec
  # JAX's computation, values and derivatives alike (its gradient at the zero vector is NaN:
  # the angle's square root): the Taylor series up to an angle of 1e-3, sin(angle/2)/angle
  # beyond
  angle = _norm(rotvec)
  angle2 = angle * angle
  small_scale = 0.5 - angle2 / 48 + angle2 * angle2 / 3840
  scale = jnp.where(angle <= 1e-3, small_scale, jnp.sin(angle / 2) / angle)
  return jnp.concatenate([scale[..., None] * rotvec, jnp.cos(angle / 2)[..., None]], axis=-1)


def _as_rotvec(quat, degrees: bool):
  quat = jnp.where(quat[..., 3:] < 0, -quat, quat)  # w >= 0: angle in [0, pi]
  angle = 2. * jnp.arctan2(_norm(quat[..., :3]), quat[..., 3])
  a2 = angle * angle
  scale = jnp.where(angle <= 1e-3, 2 + a2 / 12 + 7 * a2 * a2 / 2880, angle / jnp.sin(angle / 2))
  scale = jnp.rad2deg(scale) if degrees else scale
  return scale[..., None] * quat[..., :3]


def _as_euler(quat, extrinsic: bool, axes: list[int], degrees: bool):
  """Euler angles by Bernardes and Viollet's quaternion method (as SciPy computes them)."""
  first, third = (0, 2) if extrinsic else (2, 0)
  i, j, k = axes if extrinsic else axes[::-1]
  symmetric = i == k
  if symmetric:
    k = 3 - i - j
  sign = (i - j) * (j - k) * (k - i) // 2
  q = [quat[..., n] for n in range(4)]
  if symmetric:
    a, b, c, d = q[3], q[i], q[j], q[k] * sign
  else:
    a, b, c, d = q[3] - q[j], q[i] + q[k] * sign, q[j] + q[3], q[k] * sign - q[i]
  middle = 2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b))
  eps = 1e-7
  at_zero, at_pi = jnp.abs(middle) <= eps, jnp.abs(middle - np.pi) <= eps
  half_sum, half_diff = jnp.arctan2(b, a), jnp.arctan2(d, c)
  regular = ~(at_zero | at_pi)
  # Gimbal lock: the third angle is 0 and the first takes the whole turn.
  locked = jnp.where(at_zero, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1))
  angles = [None] * 3
  angles[1] = middle
  angles[first] = jnp.where(regular, half_sum - half_diff, locked if first == 0 else 0)
  angles[third] = jnp.where(regular, half_sum + half_diff, locked if third == 0 else 0)
  if not symmetric:
    angles[third] = angles[third] * sign
    angles[1] = angles[1] - np.pi / 2
  out = (jnp.stack(angles, axis=-1) + np.pi) % (2 * np.pi) - np.pi
  return jnp.rad2deg(out) if degrees else out


def _canonical(quat):
  """``quat`` or ``-quat``, whichever has its first nonzero of (w, x, y, z) positive."""
  neg, zero = quat < 0, quat == 0
  flip = (neg[..., 3] | (zero[..., 3] & neg[..., 0]) | (zero[..., 3] & zero[..., 0] & neg[..., 1])
          | (zero[..., 3] & zero[..., 0] & zero[..., 1] & neg[..., 2]))
  return jnp.where(flip[..., None], -quat, quat)


class Rotation(typing.NamedTuple):
  """Rotations in 3 dimensions (``scipy.spatial.transform.Rotation``), as unit quaternions
  ``quat`` of shape ``(4,)`` or ``(N, 4)``, scalar last."""
  quat: typing.Any

  @classmethod
  def concatenate(cls, rotations: typing.Sequence):
    """The rotations of a sequence of ``Rotation`` objects, in order."""
    return cls(jnp.concatenate([r.quat for r in rotations]))

  @classmethod
  def from_euler(cls, seq: str, angles, degrees: bool = False):
    """From Euler angles about the axes of ``seq`` (lower case: extrinsic, upper case:
    intrinsic); ``angles`` has ``len(seq)`` entries in its last dimension."""
    extrinsic, axes = _check_seq(seq, (1, 2, 3))
    angles = jnp.atleast_1d(jnp.asarray(angles))
    if angles.shape[-1] != len(axes):
      raise ValueError(f"Expected angles to have {len(axes)} entries in their last "
                       f"dimension for seq {seq!r}, got shape {angles.shape}.")
    angles = jnp.deg2rad(angles) if degrees else angles
    quat = _elementary(axes[0], angles[..., 0])
    for n in range(1, len(axes)):
      step = _elementary(axes[n], angles[..., n])
      quat = _compose(step, quat) if extrinsic else _compose(quat, step)
    return cls(quat.astype(quat.dtype))  # strongly typed even from Python scalars, as JAX

  @classmethod
  def from_matrix(cls, matrix):
    """From rotation matrices (shape ``(..., 3, 3)``; larger square ones use their top
    left 3x3 block, as in JAX)."""
    matrix = jnp.asarray(matrix)
    core_dimensions("(m,m)->(n)", [matrix.shape])
    return cls(_from_matrix(matrix))

  @classmethod
  def from_mrp(cls, mrp):
    """From Modified Rodrigues Parameters ``axis * tan(angle / 4)``."""
    mrp = jnp.asarray(mrp)
    s = jnp.sum(mrp * mrp, axis=-1, keepdims=True) + 1
    return cls(jnp.concatenate([2 * mrp, 2 - s], axis=-1) / s)

  @classmethod
  def from_quat(cls, quat):
    """From quaternions ``(x, y, z, w)`` (normalised here)."""
    return cls(_normalized(jnp.asarray(quat)))

  @classmethod
  def from_rotvec(cls, rotvec, degrees: bool = False):
    """From rotation vectors ``axis * angle``."""
    return cls(_from_rotvec(jnp.asarray(rotvec), degrees))

  @classmethod
  def identity(cls, num: int | None = None, dtype=float):
    """The identity rotation (``num`` of them when given)."""
    quat = jnp.array([0., 0., 0., 1.], dtype=dtype)
    return cls(quat if num is None else jnp.tile(quat, (num, 1)))

  @classmethod
  def random(cls, random_key, num: int | None = None):
    """Rotations uniformly distributed over SO(3): normalised Gaussian quaternions."""
    shape = (4,) if num is None else (num, 4)
    return cls(_normalized(normal(random_key, shape)))

  def __getitem__(self, indexer):
    if self.single:
      raise TypeError("Single rotation is not subscriptable.")
    return Rotation(self.quat[indexer])

  def __len__(self):
    if self.single:
      raise TypeError("Single rotation has no len().")
    return self.quat.shape[0]

  def __mul__(self, other) -> "Rotation":
    """The composition: ``other`` first, then ``self``."""
    return Rotation.from_quat(_compose(self.quat, other.quat))

  def apply(self, vectors, inverse: bool = False):
    """The rotated ``vectors`` (shape ``(..., 3)``, broadcast against the rotations)."""
    m = _matrix(self.quat)
    vectors = jnp.asarray(vectors)
    core_dimensions("(m,m),(m),()->(m)", [m.shape, vectors.shape, ()])
    m = jnp.swapaxes(m, -1, -2) if inverse else m
    return jnp.matmul(m, vectors[..., None])[..., 0]

  def as_euler(self, seq: str, degrees: bool = False):
    """Euler angles for a 3-axis sequence (see ``from_euler``)."""
    extrinsic, axes = _check_seq(seq, (3,))
    return _as_euler(self.quat, extrinsic, axes, degrees)

  def as_matrix(self):
    """Rotation matrices (``(..., 3, 3)``)."""
    return _matrix(self.quat)

  def as_mrp(self):
    """Modified Rodrigues Parameters (the ones with norm at most 1)."""
    quat = self.quat
    sign = jnp.where(quat[..., 3:] < 0, -1., 1.)
    return sign * quat[..., :3] / (1 + sign * quat[..., 3:])

  def as_rotvec(self, degrees: bool = False):
    """Rotation vectors ``axis * angle`` with ``angle`` in ``[0, pi]``."""
    return _as_rotvec(self.quat, degrees)

  def as_quat(self, canonical: bool = False, scalar_first: bool = False):
    """Quaternions, scalar last (first when ``scalar_first``); ``canonical`` picks the
    sign with ``w >= 0``."""
    quat = _canonical(self.quat) if canonical else self.quat
    return jnp.roll(quat, 1, axis=-1) if scalar_first else quat

  def inv(self):
    """The inverse rotations."""
    return Rotation(self.quat * jnp.array([-1, -1, -1, 1], dtype=self.quat.dtype))

  def magnitude(self):
    """The rotation angles, in ``[0, pi]``."""
    return 2 * jnp.arctan2(_norm(self.quat[..., :3]), jnp.abs(self.quat[..., 3]))

  def mean(self, weights=None):
    """The (weighted) mean rotation: the dominant eigenvector of ``sum w q q^T``."""
    quat = self.quat
    w = (jnp.ones(quat.shape[0], dtype=quat.dtype) if weights is None
         else jnp.asarray(weights, dtype=quat.dtype))
    if w.ndim != 1:
      raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
    if w.shape[0] != len(self):
      raise ValueError(f"Expected `weights` to have number of values equal to number of "
                       f"rotations, got {w.shape[0]} values and {len(self)} rotations.")
    k = jnp.dot(w[None, :] * quat.T, quat)
    return Rotation(jnp_linalg.eigh(k)[1][:, -1])

  @property
  def single(self) -> bool:
    """Whether this holds one rotation (a quaternion of shape ``(4,)``)."""
    return self.quat.ndim == 1


class Slerp(typing.NamedTuple):
  """Spherical linear interpolation between key rotations at increasing key times
  (``scipy.spatial.transform.Slerp``); build it with ``Slerp.init(times, rotations)``."""
  times: typing.Any
  timedelta: typing.Any
  rotations: Rotation
  rotvecs: typing.Any

  @classmethod
  def init(cls, times, rotations: Rotation):
    if not isinstance(rotations, Rotation):
      raise TypeError("`rotations` must be a `Rotation` instance.")
    if rotations.single or len(rotations) == 1:
      raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
    times = jnp.asarray(times, dtype=rotations.quat.dtype)
    if times.ndim != 1:
      raise ValueError(f"Expected times to be specified in a 1 dimensional array, got "
                       f"{times.ndim} dimensions.")
    if times.shape[0] != len(rotations):
      raise ValueError(f"Expected number of rotations to be equal to number of timestamps "
                       f"given, got {len(rotations)} rotations and {times.shape[0]} "
                       "timestamps.")
    starts = Rotation(rotations.quat[:-1])
    steps = starts.inv() * Rotation(rotations.quat[1:])
    return cls(times=times, timedelta=jnp.diff(times), rotations=starts,
               rotvecs=steps.as_rotvec())

  def __call__(self, times):
    """The interpolated rotations at ``times`` (a scalar gives a single rotation)."""
    t = jnp.asarray(times, dtype=self.times.dtype)
    if t.ndim > 1:
      raise ValueError("`times` must be at most 1-dimensional.")
    single = t.ndim == 0
    t = jnp.atleast_1d(t)
    ind = jnp.maximum(jnp.searchsorted(self.times, t) - 1, 0)
    alpha = (t - self.times[ind]) / self.timedelta[ind]
    out = self.rotations[ind] * Rotation.from_rotvec(self.rotvecs[ind] * alpha[:, None])
    return out[0] if single else out
