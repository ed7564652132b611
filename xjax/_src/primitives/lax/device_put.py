"""``device_put_p``: ``device_put`` of traced values, one equation for a pytree's leaves.
In a compiled program it is the identity (placement is decided at its boundary); eagerly
it places each value as ``xjax.device_put`` does (``placement.py`` installs that rule)."""
from __future__ import annotations

import enum

from xjax._src.core.avals import tangent_aval
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax.primitive_builders import standard_primitive


class ArrayCopySemantics(enum.Enum):
  """Whether a placed value may share, must copy, or takes over (donates) its input."""
  ALWAYS_COPY = 0
  REUSE_INPUT = 1
  DONATE_INPUT = 2

  def __repr__(self) -> str:
    return f"ArrayCopySemantics.{self.name}"


def copy_semantics(donate: bool, may_alias) -> ArrayCopySemantics:
  if donate:
    return ArrayCopySemantics.DONATE_INPUT
  return ArrayCopySemantics.ALWAYS_COPY if may_alias is False else (
      ArrayCopySemantics.REUSE_INPUT)


def _jvp(primals, tangents, **params):
  outs = device_put_p.bind(*primals, **params)
  nz = [i for i, t in enumerate(tangents) if type(t) is not Zero]
  out_t = [Zero(tangent_aval(get_aval(o))) for o in outs]
  if nz:
    moved = device_put_p.bind(*[tangents[i] for i in nz],
                              **{k: tuple(v[i] for i in nz) for k, v in params.items()})
    for i, t in zip(nz, moved):
      out_t[i] = t
  return outs, out_t


def _transpose(cts, *args, devices, srcs, copy_semantics):
  """Cotangents go back where the values came from (copied: never donated)."""
  out = [None] * len(args)
  back = [i for i, (c, a) in enumerate(zip(cts, args))
          if ad.is_undefined(a) and type(c) is not Zero]
  for i, a in enumerate(args):
    if ad.is_undefined(a) and i not in back:
      out[i] = Zero(a.aval)
  if any(copy_semantics[i] is ArrayCopySemantics.DONATE_INPUT for i in back):
    raise ValueError("donate=True is not allowed during tranposition of device_put.")
  if back:
    moved = device_put_p.bind(
        *[cts[i] for i in back], devices=tuple(srcs[i] for i in back),
        srcs=tuple(devices[i] for i in back),
        copy_semantics=tuple(ArrayCopySemantics.ALWAYS_COPY for _ in back))
    for i, c in zip(back, moved):
      out[i] = c
  return out


device_put_p = standard_primitive("device_put", lambda *avals, **_: list(avals),
                                  lambda ctx, *xs, **_: list(xs), multiple_results=True)
device_put_p.jvp = _jvp
device_put_p.transpose = _transpose
device_put_p.batch = lambda axis, args, dims, **params: (device_put_p.bind(*args, **params),
                                                         list(dims))
