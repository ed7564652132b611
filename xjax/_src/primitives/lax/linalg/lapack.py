"""Calls to jaxlib's LAPACK kernels: XLA FFI custom calls on the CPU.

The runtime registers the kernels (``ffi_targets.lapack_targets``).  Each kernel takes and
returns arrays with leading batch dimensions; matrices are column-major inside (the
layouts below say so, and XLA transposes as needed).  Attributes are the single-byte
LAPACK flags (``uplo = 'L'``, ...).  Kernels exist for float32/64 and complex64/128 only.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.backend import clients, ffi_targets
from xjax._src.backend.lowering import compare_attributes
from xjax._src.core.avals import ShapedArray

_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
           np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}


def supported(dtype) -> bool:
  return np.dtype(dtype) in _PREFIX


def check_dtype(name: str, dtype, kernel: bool = True) -> None:
  """A floating or complex dtype (TypeError otherwise); with ``kernel``, one LAPACK has
  kernels for (float16 and bfloat16 raise the NotImplementedError JAX's kernel lookup
  raises, with its arguments)."""
  dtype = np.dtype(dtype)
  if not (dtypes.is_float(dtype) or dtypes.is_complex(dtype)):
    raise TypeError(f"{name} does not accept dtype {dtype.name} at position 0. "
                    "Accepted dtypes at position 0 are subtypes of floating, complexfloating.")
  if kernel and not supported(dtype):
    raise NotImplementedError(KeyError(dtype.type), f"Unsupported dtype {dtype.name}.")


def available(dtype) -> bool:
  """Whether this program can call a LAPACK kernel for ``dtype`` (the CPU backend)."""
  return supported(dtype) and clients.default_backend() == "cpu" and bool(
      ffi_targets.lapack_targets())


def target(base: str, dtype) -> str:
  """The kernel name, e.g. ``target("potrf", float32) == "lapack_spotrf_ffi"``; real
  dtypes use ``real`` in place of ``base`` where LAPACK names them differently."""
  return f"lapack_{_PREFIX[np.dtype(dtype)]}{base}_ffi"


def flag(c: str) -> str:
  return f"{ord(c)} : ui8"


def _layout(aval: ShapedArray, matrix: bool) -> str:
  r = aval.ndim
  if matrix and r >= 2:
    order = [r - 2, r - 1] + list(range(r - 3, -1, -1))
  else:
    order = list(range(r - 1, -1, -1))
  if not order:
    return "dense<> : tensor<0xindex>"
  return f"dense<[{', '.join(map(str, order))}]> : tensor<{r}xindex>"


def call(ctx, name: str, operands: Sequence[str], in_avals: Sequence[ShapedArray],
         out_avals: Sequence[ShapedArray], attrs: dict[str, str],
         in_matrix: Sequence[bool], out_matrix: Sequence[bool]) -> list[str]:
  """Emits one ``stablehlo.custom_call`` to the kernel ``name``; returns its results."""
  config = ", ".join(f"{k} = {v}" for k, v in attrs.items())
  ins = ", ".join(_layout(a, m) for a, m in zip(in_avals, in_matrix))
  outs = ", ".join(_layout(a, m) for a, m in zip(out_avals, out_matrix))
  return ctx.op("stablehlo.custom_call", list(operands), list(out_avals),
               {"call_target_name": f'"{name}"', "api_version": "4 : i32",
                "backend_config": f"{{{config}}}", "operand_layouts": f"[{ins}]",
                "result_layouts": f"[{outs}]"}, in_avals=list(in_avals))


def info_ok(ctx, info: str, batch: tuple) -> str:
  """``info == 0`` per batch element (LAPACK's success flag)."""
  aval = ShapedArray(batch, np.int32)
  zero = ctx.constant(np.zeros(batch, np.int32), aval)
  return ctx.op("stablehlo.compare", [info, zero], ShapedArray(batch, np.bool_),
                compare_attributes("EQ", np.int32), in_avals=[aval, aval])
