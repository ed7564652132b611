"""Gaussian kernel density estimation (``jax.scipy.stats.gaussian_kde``), a pytree.

The kernel covariance is the (weighted) data covariance times ``factor**2`` (Scott's or
Silverman's rule, a scalar, or a callable of the estimator). Densities are evaluated as JAX
evaluates them: in coordinates whitened by the Cholesky factor of the inverse covariance, one
kernel per (point, datum) pair mapped with ``vmap`` and reduced over the data.
"""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.api.transformations import vmap
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy import linalg as jnp_linalg
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact
from xjax._src.libraries.random import discrete as random_discrete
from xjax._src.libraries.random import multivariate as random_multivariate
from xjax._src.libraries.random.keys import split
from xjax._src.libraries.scipy import linalg
from xjax._src.libraries.scipy.special.log_sum_exp import logsumexp
from xjax._src.libraries.scipy.special.normal import ndtr
from xjax._src.foundations.tree_util import register_pytree_node_class

_FIELDS = ("neff", "dataset", "weights", "covariance", "inv_cov")


@register_pytree_node_class
class gaussian_kde:
  """Kernel density estimate of ``dataset`` (shape (d, n), or (n,) for d = 1)."""
  __slots__ = _FIELDS

  def __init__(self, dataset, bw_method=None, weights=None):
    dataset, = arraylike("gaussian_kde", dataset)
    dataset = jnp.atleast_2d(dataset)
    if dtypes.issubdtype(dataset.dtype, np.complexfloating):
      raise NotImplementedError("gaussian_kde does not support complex data")
    if not dataset.size > 1:
      raise ValueError("`dataset` input should have multiple elements.")
    d, n = dataset.shape
    if weights is None:
      (dataset,) = promote_dtypes_inexact(dataset)
      weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
    else:
      weights, = arraylike("gaussian_kde", weights)
      dataset, weights = promote_dtypes_inexact(dataset, weights)
      weights = jnp.atleast_1d(weights)
      weights = weights / jnp.sum(weights)
      if weights.ndim != 1:
        raise ValueError("`weights` input should be one-dimensional.")
      if weights.shape[0] != n:
        raise ValueError("`weights` input should be of length n")
    self._set(neff=1 / jnp.sum(weights ** 2), dataset=jnp.asarray(dataset), weights=weights)
    if bw_method is None or (isinstance(bw_method, str) and bw_method == "scott"):
      factor = jnp.power(self.neff, -1.0 / (d + 4))
    elif isinstance(bw_method, str) and bw_method == "silverman":
      factor = jnp.power(self.neff * (d + 2) / 4.0, -1.0 / (d + 4))
    elif jnp.isscalar(bw_method) and not isinstance(bw_method, str):
      factor = bw_method
    elif callable(bw_method):
      factor = bw_method(self)
    else:
      raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")
    data_cov = jnp.atleast_2d(jnp.cov(self.dataset, rowvar=1, bias=False, aweights=weights))
    data_inv_cov = jnp_linalg.inv(data_cov)
    self._set(covariance=data_cov * factor ** 2, inv_cov=data_inv_cov / factor ** 2)

  def _set(self, **fields):
    for name, value in fields.items():
      object.__setattr__(self, name, value)

  def __setattr__(self, name, value):
    raise AttributeError(f"cannot assign to field {name!r}: gaussian_kde is frozen")

  def tree_flatten(self):
    return tuple(getattr(self, f) for f in _FIELDS), None

  @classmethod
  def tree_unflatten(cls, aux_data, children):
    del aux_data
    kde = cls.__new__(cls)
    kde._set(**dict(zip(_FIELDS, children)))
    return kde

  @property
  def d(self):
    return self.dataset.shape[0]

  @property
  def n(self):
    return self.dataset.shape[1]

  def _points(self, points):
    if dtypes.issubdtype(jnp.result_type(points), np.complexfloating):
      raise NotImplementedError("gaussian_kde does not support complex coordinates")
    points = jnp.atleast_2d(points)
    d, m = points.shape
    if d != self.d:
      if d == 1 and m == self.d:
        return jnp.reshape(points, (self.d, 1))
      raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
    return points

  def evaluate(self, points):
    """The density at ``points`` (shape (d, m))."""
    points, = arraylike("evaluate", points)
    points = self._points(points)
    return _kernel_sums(self.dataset.T, self.weights[:, None], points.T, self.inv_cov,
                        in_log=False)[:, 0]

  def __call__(self, points):
    return self.evaluate(points)

  def pdf(self, x):
    """Probability density function."""
    return self.evaluate(x)

  def logpdf(self, x):
    """The log density at ``x``, a log-sum-exp over the kernels."""
    x, = arraylike("logpdf", x)
    x = self._points(x)
    return _kernel_sums(self.dataset.T, self.weights[:, None], x.T, self.inv_cov,
                        in_log=True)[:, 0]

  def _cho_norm(self, cov):
    chol = linalg.cho_factor(self.covariance + cov)
    return chol, 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))

  def integrate_gaussian(self, mean, cov):
    """Integral of the density times a Gaussian N(mean, cov)."""
    mean = jnp.atleast_1d(jnp.squeeze(mean))
    cov = jnp.atleast_2d(cov)
    if mean.shape != (self.d,):
      raise ValueError(f"mean does not have dimension {self.d}")
    if cov.shape != (self.d, self.d):
      raise ValueError(f"covariance does not have dimension {self.d}")
    chol, norm = self._cho_norm(cov)
    return _convolve(chol, norm, self.dataset, self.weights, mean)

  def integrate_box_1d(self, low, high):
    """Integral of a 1-d density between scalar limits."""
    return _integrate_box_1d(self, low, high)

  def integrate_kde(self, other):
    """Integral of the product of this density and ``other``'s."""
    if other.d != self.d:
      raise ValueError("KDEs are not the same dimensionality")
    chol, norm = self._cho_norm(other.covariance)
    small, large = (self, other) if self.n < other.n else (other, self)
    per_point = vmap(lambda mean: _convolve(chol, norm, large.dataset, large.weights, mean),
                     in_axes=1)(small.dataset)
    return jnp.sum(per_point * small.weights)

  def resample(self, key, shape=()):
    """Draws ``shape`` samples (returned as shape (d, *shape))."""
    return _resample(self, key, shape)

  def integrate_box(self, low_bounds, high_bounds, maxpts=None):
    del low_bounds, high_bounds, maxpts
    raise NotImplementedError("only 1D box integrations are supported; use "
                              "`integrate_box_1d`")

  def set_bandwidth(self, bw_method=None):
    del bw_method
    raise NotImplementedError("dynamically changing the bandwidth method is not supported")


@compiled_when_eager(staged="integrate_box_1d")
def _integrate_box_1d(kde, low, high):
  if kde.d != 1:
    raise ValueError("integrate_box_1d() only handles 1D pdfs")
  if np.ndim(low) != 0 or np.ndim(high) != 0:
    raise ValueError("the limits of integration in integrate_box_1d must be scalars")
  sigma = jnp.squeeze(jnp.sqrt(kde.covariance))
  low = jnp.squeeze((low - kde.dataset) / sigma)
  high = jnp.squeeze((high - kde.dataset) / sigma)
  return jnp.sum(kde.weights * (ndtr(high) - ndtr(low)))


@compiled_when_eager(staged="resample", static_argnames=("shape",))
def _resample(kde, key, shape=()):
  ind_key, eps_key = split(key)
  ind = random_discrete.choice(ind_key, kde.n, shape=shape, p=kde.weights)
  eps = random_multivariate.multivariate_normal(
      eps_key, jnp.zeros(kde.d, kde.covariance.dtype), kde.covariance, shape=shape,
      dtype=kde.dataset.dtype).T
  return kde.dataset[:, ind] + eps


def _convolve(chol, norm, target, weights, mean):
  """norm * sum_i w_i exp(-(t_i - mean)^T C^-1 (t_i - mean) / 2), C factored in ``chol``."""
  diff = target - mean[:, None]
  alpha = linalg.cho_solve(chol, diff)
  arg = 0.5 * jnp.sum(diff * alpha, axis=0)
  return norm * jnp.sum(jnp.exp(-arg) * weights)


@compiled_when_eager(staged="_gaussian_kernel_eval", static_argnames=("in_log",))
def _kernel_sums(points, values, xi, precision, *, in_log: bool):
  """For each row of ``xi``: sum_i values_i N(x; points_i, precision^-1) (its log with
  ``in_log``), in coordinates whitened by the Cholesky factor of ``precision``."""
  points, values, xi, precision = promote_dtypes_inexact(points, values, xi, precision)
  d = points.shape[1]
  if xi.shape[1] != d:
    raise ValueError("points and xi must have same trailing dim")
  if precision.shape != (d, d):
    raise ValueError("precision matrix must match data dims")
  whitening = linalg.cholesky(precision, lower=True)
  points, xi = jnp.dot(points, whitening), jnp.dot(xi, whitening)
  log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * jnp.log(2 * np.pi)

  def kernel(x_test, x_train, y_train):
    arg = log_norm - 0.5 * jnp.sum(jnp.square(x_train - x_test))
    return jnp.log(y_train) + arg if in_log else y_train * jnp.exp(arg)

  reduce = logsumexp if in_log else jnp.sum
  return vmap(lambda x: reduce(vmap(kernel, in_axes=(None, 0, 0))(x, points, values),
                               axis=0))(xi)
