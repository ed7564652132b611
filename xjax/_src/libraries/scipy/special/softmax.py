"""SciPy's softmax and log_softmax: ``jax.nn``'s with SciPy's keyword-only ``axis``
(default: all axes)."""
from __future__ import annotations

from xjax._src.libraries.nn import softmax as _nn


def softmax(x, /, *, axis=None):
  """exp(x) / sum(exp(x)) over ``axis`` (all axes by default)."""
  return _nn.softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
  """x - logsumexp(x) over ``axis`` (all axes by default)."""
  return _nn.log_softmax(x, axis=axis)
