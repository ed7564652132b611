"""The foreign function interface (``jax.ffi``): calling XLA FFI handlers written in C++.

A handler (a ``PyCapsule`` of its function pointer, see ``pycapsule``) is registered with
the runtime under a target name (``register_ffi_target``).  ``ffi_call`` binds the
``ffi_call`` primitive, which lowers to ``stablehlo.custom_call @target`` whose dictionary
``backend_config`` holds the call's keyword arguments as typed attributes (encoded by
``backend/custom_call.py``); eagerly it runs as a one-primitive program like any other.
``ffi_lowering`` / ``build_ffi_lowering_function`` make the same custom call a lowering
rule for primitives defined with ``xjax.extend`` (``mlir.register_lowering``).
"""
from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any, Callable, Mapping

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.backend import custom_call, ffi_targets, mlir_modules
from xjax._src.primitives.callback import _sequential
from xjax._src.core import effects as fx
from xjax._src.core.avals import ShapedArray, physical_aval
from xjax._src.core.trace import Primitive
from xjax._src.core.values import get_aval
from xjax._src.interpreters import batching
from xjax._src.extend.user_lowering import aval_to_ir_type, in_bindings_rule
from xjax._src.foundations.layout import Layout
from xjax._src.primitives.lax.tokens import abstract_token

# ---------------------------------------------------------------------------------------
# Registration


def register_ffi_target(name: str, fn: Any, platform: str = "cpu", api_version: int = 1,
                        **kwargs: Any) -> None:
  """Registers ``fn`` (a ``PyCapsule`` of an XLA FFI handler, or a dict of them by stage
  name such as ``"execute"``) as the FFI target ``name`` on ``platform``.
  ``api_version=0`` registers a legacy (untyped) custom-call function instead; further
  keyword arguments (``traits=``) go to the runtime."""
  ffi_targets.register_ffi_target(name, fn, platform, api_version, **kwargs)


def register_ffi_type_id(name: str, obj: Any, platform: str = "cpu") -> None:
  """Not supported by this jaxlib (as in JAX 0.10.2): use ``register_ffi_type``."""
  raise ValueError("register_ffi_type_id is not supported by this jaxlib (version 381 and "
                   "later); register the type with register_ffi_type(name, "
                   "{'type_id': capsule}) instead.")


def register_ffi_type(name: str, type_registration: Mapping[str, Any],
                      platform: str = "cpu") -> None:
  """Registers a user type for FFI handlers: ``type_registration`` is a dict with a
  ``"type_id"`` capsule (a pointer to the ``XLA_FFI_TypeId``) and optionally a
  ``"type_info"`` capsule."""
  ffi_targets.register_ffi_type(name, type_registration, platform)


def register_ffi_target_as_batch_partitionable(name: str) -> None:
  """Tells XLA's partitioner that target ``name`` runs independently on each shard of its
  leading (batch) dimensions."""
  ffi_targets.register_ffi_batch_partitionable(name)


_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                                 ctypes.c_void_p)(("PyCapsule_New", ctypes.pythonapi))


def pycapsule(funcptr) -> Any:
  """An unnamed ``PyCapsule`` holding the address of ``funcptr`` (a function loaded from a
  shared library with ``ctypes``), as ``register_ffi_target`` takes it."""
  address = ctypes.cast(funcptr, ctypes.c_void_p).value
  if not address:
    raise ValueError(f"pycapsule expects a ctypes function pointer, got {funcptr!r}")
  return _capsule_new(address, None, None)


def include_dir() -> str:
  """The directory of the XLA FFI C++ headers shipped with jaxlib: compile handlers with
  ``-I`` it and ``#include "xla/ffi/api/ffi.h"``."""
  return ffi_targets.ffi_include_dir()


# ---------------------------------------------------------------------------------------
# Layouts: minor-to-major dimension orders, as XLA takes them

LayoutOption = Sequence[int] | Layout | None


def _rank(aval: ShapedArray) -> int:
  return physical_aval(aval).ndim


def _minor_to_major(aval: ShapedArray, layout: LayoutOption) -> tuple[int, ...]:
  """``layout`` (None: row-major; a ``Layout``; or a minor-to-major sequence) as XLA's
  minor-to-major order."""
  if layout is None:
    return tuple(reversed(range(_rank(aval))))
  if isinstance(layout, Layout):
    if layout.tiling is not None:
      raise ValueError("The FFI does not support layouts with tiling")
    return tuple(layout.major_to_minor[::-1])
  return tuple(int(d) for d in layout)


def _from_major_to_minor(avals: Sequence[ShapedArray], layouts: Sequence[LayoutOption],
                         what: str) -> tuple:
  """``ffi_call``'s layouts, given major-to-minor, as minor-to-major orders."""
  if len(layouts) != len(avals):
    raise ValueError(f"The number of {what} ({len(avals)}) must equal the number of "
                     f"{'input' if what == 'input arguments' else 'output'} layouts "
                     f"({len(layouts)}).")
  return tuple(_minor_to_major(a, l if l is None or isinstance(l, Layout) else tuple(l)[::-1])
               for a, l in zip(avals, layouts))


def _with_batch_major(layout: tuple) -> tuple:
  """A layout for the same array with a new leading (most major) batch dimension."""
  return tuple(d + 1 for d in layout) + (0,)


# ---------------------------------------------------------------------------------------
# Emitting the custom call


class TextOp:
  """A custom call emitted as text (what ``build_ffi_lowering_function``'s rule returns
  outside the MLIR bindings): its results are SSA names."""
  __slots__ = ("results",)

  def __init__(self, results: Sequence[str]) -> None:
    self.results = list(results)

  @property
  def result(self) -> str:
    if len(self.results) != 1:
      raise ValueError(f"the custom call has {len(self.results)} results, not one")
    return self.results[0]

  @property
  def operation(self) -> "TextOp":
    return self


def _emit(ctx, operands: Sequence, avals_out: Sequence[ShapedArray], attrs: dict[str, str],
          result_types=None):
  """The custom call with attribute texts ``attrs``: in xjax's text (``ctx`` is xjax's
  LoweringContext; returns result names), or built with jaxlib's MLIR bindings while a
  bindings rule runs (returns the op)."""
  if in_bindings_rule():
    ir = mlir_modules.mlir_bindings("ir")
    types = list(result_types) if result_types is not None else [
        aval_to_ir_type(a) for a in avals_out]
    return ir.Operation.create(
        "stablehlo.custom_call", results=types, operands=list(operands),
        attributes={k: ir.Attribute.parse(v) for k, v in attrs.items()}).opview
  if result_types is not None and [str(t) for t in result_types] != [
      aval_to_ir_type(a) for a in avals_out]:
    raise NotImplementedError("result_types other than the types of the primitive's "
                              "results are not supported")
  return ctx.op("stablehlo.custom_call", list(operands), list(avals_out), attrs)


_CUSTOM_CALL_OPTIONS = {"api_version", "has_side_effect", "operand_output_aliases",
                        "result_types", "called_computations", "extra_attributes",
                        "result_shapes"}


def build_ffi_lowering_function(
    call_target_name: str, *, operand_layouts: Sequence[LayoutOption] | None = None,
    result_layouts: Sequence[LayoutOption] | None = None,
    backend_config: Mapping[str, Any] | str | None = None,
    skip_ffi_layout_processing: bool = False, **lowering_args: Any) -> Callable:
  """A function ``(ctx, *operands, **params)`` emitting a custom call to
  ``call_target_name`` and returning the operation (``.results``; ``.result`` when one).

  Layouts default to row-major; given ones are minor-to-major (XLA's order).  ``params``
  become FFI attributes, added to ``backend_config`` (a dict of attributes for the typed
  FFI, ``api_version=4``, the default; an opaque string for older API versions).  Other
  keyword arguments are options of the custom call: ``api_version``, ``has_side_effect``,
  ``operand_output_aliases``, ``result_types``, ``called_computations``,
  ``extra_attributes``."""
  unknown = set(lowering_args) - _CUSTOM_CALL_OPTIONS
  if unknown:
    raise TypeError(f"build_ffi_lowering_function got unexpected keyword arguments "
                    f"{sorted(unknown)}; custom call options are "
                    f"{sorted(_CUSTOM_CALL_OPTIONS)}")
  if lowering_args.get("result_shapes") is not None:
    raise NotImplementedError("result_shapes (dynamic result shapes) are not supported: "
                              "xjax's shapes are static")
  api_version = int(lowering_args.get("api_version", 4))

  def lowering_op(ctx, *operands, **params):
    if api_version >= 4:
      if backend_config is not None and not isinstance(backend_config, dict):
        raise ValueError("When api_version > 4, backend_config must be a dictionary.")
      config = {k: custom_call.attribute(v) for k, v in (backend_config or {}).items()}
      config.update({k: custom_call.attribute(v) for k, v in params.items()})
    else:
      if params:
        raise ValueError("The use of ffi_call attributes requires a custom call API "
                         f"version of at least 4; got api_version={api_version}.")
      config = backend_config
    in_layouts = out_layouts = None
    if not skip_ffi_layout_processing:
      in_layouts = [_minor_to_major(a, l) for a, l in zip(
          ctx.avals_in, operand_layouts or [None] * len(ctx.avals_in))]
      out_layouts = [_minor_to_major(a, l) for a, l in zip(
          ctx.avals_out, result_layouts or [None] * len(ctx.avals_out))]
    attrs = custom_call.attributes(
        call_target_name, api_version=api_version, backend_config=config,
        has_side_effect=bool(lowering_args.get("has_side_effect", False)),
        operand_layouts=in_layouts, result_layouts=out_layouts,
        output_operand_aliases=lowering_args.get("operand_output_aliases"),
        num_results=len(ctx.avals_out),
        called_computations=lowering_args.get("called_computations", ()),
        extra=lowering_args.get("extra_attributes"))
    out = _emit(getattr(ctx, "ctx", ctx), operands, ctx.avals_out, attrs,
                lowering_args.get("result_types"))
    return out if in_bindings_rule() else TextOp(out)
  return lowering_op


def ffi_lowering(call_target_name: str, *,
                 operand_layouts: Sequence[LayoutOption] | None = None,
                 result_layouts: Sequence[LayoutOption] | None = None,
                 backend_config: Mapping[str, Any] | str | None = None,
                 skip_ffi_layout_processing: bool = False, **lowering_args: Any) -> Callable:
  """A lowering rule (for ``mlir.register_lowering``) that calls the FFI target
  ``call_target_name``; the primitive's parameters become FFI attributes.  The arguments
  are ``build_ffi_lowering_function``'s."""
  build = build_ffi_lowering_function(
      call_target_name, operand_layouts=operand_layouts, result_layouts=result_layouts,
      backend_config=backend_config, skip_ffi_layout_processing=skip_ffi_layout_processing,
      **lowering_args)

  def rule(ctx, *operands, **params):
    return list(build(ctx, *operands, **params).results)
  return rule


# ---------------------------------------------------------------------------------------
# The ffi_call primitive


class FfiEffect(fx.Effect):
  """An FFI call with side effects (``has_side_effect=True``): never dropped, unordered."""
  __slots__ = ()

  def __init__(self) -> None:
    super().__init__("FFI", ordered=False)


ffi_effect = FfiEffect()
fx.control_flow_allowed_effects.add_type(FfiEffect)


class Attribute:
  """A keyword argument of ``ffi_call``: the value (printed in jaxprs) and its attribute
  text, by which it hashes and compares (so ``1`` and ``1.0``, an ``i64`` and an ``f64``,
  give different programs, and arrays and dicts can be parameters)."""
  __slots__ = ("value", "text")

  def __init__(self, value: Any) -> None:
    self.value = value
    self.text = custom_call.attribute(value)

  def __eq__(self, other) -> bool:
    return type(other) is Attribute and other.text == self.text

  def __hash__(self) -> int:
    return hash(self.text)

  def __repr__(self) -> str:
    return repr(self.value)


def _abstract_eval(*avals, result_avals, **_):
  return list(result_avals)


def _not_differentiable(*_, target_name, **__):
  raise ValueError(f"The FFI call to `{target_name}` cannot be differentiated. You can use "
                   "`jax.custom_jvp` or `jax.custom_vjp` to add support.")


def _lowering(ctx, *operands, target_name, has_side_effect, input_layouts, output_layouts,
              input_output_aliases, custom_call_api_version, legacy_backend_config,
              attributes, **_):
  config = ({k: a.text for k, a in attributes} if custom_call_api_version >= 4
            else legacy_backend_config)
  attrs = custom_call.attributes(
      target_name, api_version=custom_call_api_version, backend_config=config,
      has_side_effect=has_side_effect, operand_layouts=input_layouts,
      result_layouts=output_layouts, output_operand_aliases=dict(input_output_aliases),
      num_results=len(ctx.avals_out))
  return _emit(ctx, operands, ctx.avals_out, attrs)


_VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized", None)


def _batch(axis, args, dims, *, vmap_method, result_avals, **params):
  """vmap as ``vmap_method`` says: a loop (``sequential``, unrolled or not), or one call on
  the whole batch (the others: unbatched inputs get a size-1 batch dimension
  (``expand_dims``), the full one (``broadcast_all``) or none (``legacy_vectorized``))."""
  size = axis.size
  args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)]
  if vmap_method in ("sequential", "sequential_unrolled"):
    outs = _sequential(lambda *xs: ffi_call_p.bind(
        *xs, vmap_method=vmap_method, result_avals=result_avals, **params), args, dims,
        unroll=vmap_method == "sequential_unrolled")
    return list(outs), [0] * len(outs)
  if vmap_method not in ("expand_dims", "broadcast_all", "legacy_vectorized"):
    raise NotImplementedError(
        "vmap is only supported for the ffi_call primitive when vmap_method is one of "
        "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
        f"'legacy_vectorized'. Got vmap_method={vmap_method!r}. Pass vmap_method= to "
        f"xjax.ffi.ffi_call to say how the target {params['target_name']!r} handles a "
        "batch dimension.")
  batched = [d is not None for d in dims]
  if vmap_method != "legacy_vectorized":
    from xjax._src.primitives.lax.shapes import broadcast
    n = size if vmap_method == "broadcast_all" else 1
    args = [x if b else broadcast(x, (n,)) for x, b in zip(args, batched)]
    batched = [True] * len(args)
  params["input_layouts"] = tuple(_with_batch_major(l) if b else l
                                  for l, b in zip(params["input_layouts"], batched))
  params["output_layouts"] = tuple(map(_with_batch_major, params["output_layouts"]))
  out_avals = tuple(ShapedArray((size, *a.shape), a.dtype) for a in result_avals)
  outs = ffi_call_p.bind(*args, vmap_method=vmap_method, result_avals=out_avals, **params)
  return list(outs), [0] * len(outs)


ffi_call_p = Primitive("ffi_call", multiple_results=True)
ffi_call_p.abstract_eval = _abstract_eval
ffi_call_p.lowering = _lowering
ffi_call_p.jvp = _not_differentiable
ffi_call_p.transpose = _not_differentiable
ffi_call_p.batch = _batch
ffi_call_p.effects = lambda has_side_effect, **_: (ffi_effect,) if has_side_effect else ()


def _attributes(kwargs: dict) -> tuple:
  """``ffi_call``'s keyword arguments as (name, Attribute) pairs, sorted by name."""
  out = []
  for k, v in sorted(kwargs.items()):
    try:
      out.append((k, Attribute(v)))
    except (TypeError, OverflowError) as e:
      raise type(e)(f"ffi_call keyword argument {k}={v!r} cannot be passed to the handler "
                    f"as an attribute: {e}") from None
  return tuple(out)


def _result_avals(results: Sequence[Any]) -> tuple[ShapedArray, ...]:
  """The declared results' avals, with their dtypes as given (not canonicalized, as JAX:
  a handler writing int64 gets an int64 buffer)."""
  avals = []
  for i, r in enumerate(results):
    if r is abstract_token:
      raise NotImplementedError("ffi_call results of token type are not supported (xjax's "
                                "tokens carry no XLA token)")
    if not hasattr(r, "shape") or not hasattr(r, "dtype"):
      raise ValueError("All elements of result_shape_dtypes must have 'shape' and 'dtype' "
                       f"attributes. Got {r!r} at position {i}.")
    dtype = r.dtype if dtypes.is_extended(r.dtype) else np.dtype(r.dtype)
    avals.append(ShapedArray(tuple(int(d) for d in r.shape), dtype))
  return tuple(avals)


def _aliases(input_output_aliases: Mapping[int, int], in_avals, out_avals, in_layouts,
             out_layouts) -> tuple:
  pairs = []
  for i, o in sorted((int(i), int(o)) for i, o in input_output_aliases.items()):
    mapping = f"input_output_aliases contains the mapping '{i}:{o}'"
    if not 0 <= i < len(in_avals):
      raise ValueError(f"{mapping} with input index {i} outside the range "
                       f"[0, {len(in_avals)}).")
    if not 0 <= o < len(out_avals):
      raise ValueError(f"{mapping} with output index {o} outside the range "
                       f"[0, {len(out_avals)}).")
    a, b = in_avals[i], out_avals[o]
    if (a.shape, a.dtype) != (b.shape, b.dtype):
      raise ValueError(f"{mapping} referring to an input with abstract value "
                       f"{a.str_short(False)} and an output with a different abstract value "
                       f"{b.str_short(False)}.")
    if in_layouts[i] != out_layouts[o]:
      raise ValueError(f"{mapping} referring to an input with layout {in_layouts[i]} and an "
                       f"output with a different layout {out_layouts[o]}.")
    pairs.append((i, o))
  return tuple(pairs)


def ffi_call(target_name: str, result_shape_dtypes: Any, *, has_side_effect: bool = False,
             vmap_method: str | None = None,
             input_layouts: Sequence[LayoutOption] | None = None,
             output_layouts: LayoutOption | Sequence[LayoutOption] | None = None,
             input_output_aliases: dict[int, int] | None = None,
             custom_call_api_version: int = 4,
             legacy_backend_config: str | None = None) -> Callable:
  """A function calling the FFI target ``target_name`` (see ``register_ffi_target``).

  ``result_shape_dtypes``: an object with ``shape`` and ``dtype`` (one result) or a
  sequence of them.  The returned function takes the input arrays positionally; its
  keyword arguments are passed to the handler as attributes.  ``has_side_effect=True``
  keeps calls whose results are unused.  Under vmap, ``vmap_method`` says how the call
  batches (as ``pure_callback``'s).  Layouts are major-to-minor orders (or ``Layout``s);
  ``input_output_aliases`` maps input to output indices sharing a buffer.
  ``custom_call_api_version < 4`` calls a legacy custom call with the opaque
  ``legacy_backend_config`` string."""
  if vmap_method not in _VMAP_METHODS:
    raise ValueError(f"vmap_method must be on of the allowed methods {list(_VMAP_METHODS)}, "
                     f"but got: {vmap_method}")
  multiple = isinstance(result_shape_dtypes, Sequence)
  result_avals = _result_avals(result_shape_dtypes if multiple else [result_shape_dtypes])
  out_layout_options = output_layouts if multiple else (output_layouts,)
  if custom_call_api_version >= 4 and legacy_backend_config is not None:
    raise ValueError("The use of the legacy_backend_config parameter requires "
                     f"custom_call_api_version < 4; got {custom_call_api_version}.")

  def wrapped(*args: Any, **kwargs: Any):
    if kwargs and custom_call_api_version < 4:
      raise ValueError("The use of ffi_call attributes requires a custom call API version "
                       f"of at least 4; got api_version={custom_call_api_version}.")
    in_avals = [get_aval(x) for x in args]
    in_layouts = (tuple(_minor_to_major(a, None) for a in in_avals) if input_layouts is None
                  else _from_major_to_minor(in_avals, input_layouts, "input arguments"))
    out_layouts = (tuple(_minor_to_major(a, None) for a in result_avals)
                   if out_layout_options is None
                   else _from_major_to_minor(result_avals, out_layout_options, "outputs"))
    aliases = _aliases(input_output_aliases or {}, in_avals, result_avals, in_layouts,
                       out_layouts)
    outs = ffi_call_p.bind(
        *args, attributes=_attributes(kwargs),
        custom_call_api_version=int(custom_call_api_version),
        has_side_effect=bool(has_side_effect), input_layouts=in_layouts,
        input_output_aliases=aliases, legacy_backend_config=legacy_backend_config,
        output_layouts=out_layouts, result_avals=result_avals, target_name=target_name,
        vmap_method=vmap_method)
    if not multiple:
      return outs[0]
    return tuple(outs) if isinstance(result_shape_dtypes, tuple) else list(outs)
  return wrapped
