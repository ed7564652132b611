"""Requested accuracy of transcendental functions (``lax.exp(x, accuracy=...)``): a
``Tolerance`` or an ``AccuracyMode``, written on the StableHLO op as its
``result_accuracy``; XLA picks an implementation that meets it (CPU has one of each)."""
from __future__ import annotations

import enum


class Tolerance:
  """Tolerances for a unary function's result: at most two of ``atol``, ``rtol`` and
  ``ulps`` (atol with rtol, or atol with ulps)."""

  def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
    if atol < 0.0 or rtol < 0.0 or ulps < 0.0:
      raise ValueError("Tolerances must be non-negative.")
    if atol == 0.0 and rtol == 0.0 and ulps == 0:
      raise ValueError("At least one of atol, rtol, or ulps must be set.")
    self.atol = atol
    self.rtol = rtol
    self.ulps = ulps


class AccuracyMode(enum.Enum):
  HIGHEST = 1
  DEFAULT = 2


def check_accuracy(accuracy):
  """``accuracy`` if it is None, a Tolerance or an AccuracyMode."""
  if accuracy is None or isinstance(accuracy, (Tolerance, AccuracyMode)):
    return accuracy
  raise NotImplementedError(f"Accuracy {accuracy} not supported: pass a lax.Tolerance or a "
                            "lax.AccuracyMode.")


def accuracy_attrs(ctx, accuracy=None) -> dict | None:
  """The ``result_accuracy`` attribute of an op lowered with ``accuracy`` (None: none)."""
  if accuracy is None:
    return None
  if isinstance(accuracy, AccuracyMode):
    fields = f"mode = #stablehlo.result_accuracy_mode<{accuracy.name}>"
  else:
    fields = (f"atol = {float(accuracy.atol):e}, rtol = {float(accuracy.rtol):e}, "
              f"ulps = {int(accuracy.ulps)}, "
              "mode = #stablehlo.result_accuracy_mode<TOLERANCE>")
  return {"result_accuracy": f"#stablehlo.result_accuracy<{fields}>"}
