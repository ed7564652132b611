"""Lowering jaxprs to StableHLO, as MLIR text in the generic operation syntax.

``lower_module`` turns a jaxpr into a module whose public ``main`` takes the jaxpr's
constvars and invars.  Each equation is handed to its primitive's ``lowering`` rule with a
``LoweringContext``; rules emit operations with ``ctx.op`` and return SSA names.  Sub-jaxprs
of call primitives become private functions, emitted once per distinct jaxpr.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import math

import numpy as np

from xjax._src.foundations import dtypes, monitoring
from xjax._src.foundations.sharding import NamedSharding, partial_manual_hlo_text
from xjax._src.core.avals import ShapedArray, physical_aval, sharded_types
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Literal

_MLIR_ELEMENT = {
    np.dtype(np.bool_): "i1",
    np.dtype(np.int8): "i8", np.dtype(np.int16): "i16", np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.uint8): "ui8", np.dtype(np.uint16): "ui16", np.dtype(np.uint32): "ui32",
    np.dtype(np.uint64): "ui64",
    np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
    np.dtype(np.complex64): "complex<f32>", np.dtype(np.complex128): "complex<f64>",
}


def _register_ml_dtypes() -> None:
  import ml_dtypes
  names = {"bfloat16": "bf16", "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2",
           "float8_e4m3b11fnuz": "f8E4M3B11FNUZ", "float8_e4m3fnuz": "f8E4M3FNUZ",
           "float8_e5m2fnuz": "f8E5M2FNUZ", "float8_e3m4": "f8E3M4", "float8_e4m3": "f8E4M3",
           "float8_e8m0fnu": "f8E8M0FNU", "float4_e2m1fn": "f4E2M1FN",
           "int4": "i4", "uint4": "ui4", "int2": "i2", "uint2": "ui2"}
  for name, mlir in names.items():
    if hasattr(ml_dtypes, name):
      _MLIR_ELEMENT[np.dtype(getattr(ml_dtypes, name))] = mlir
  _MLIR_ELEMENT[np.dtype(dtypes.float0)] = "i1"


_register_ml_dtypes()


def element_type(dtype) -> str:
  try:
    return _MLIR_ELEMENT[np.dtype(dtype)]
  except KeyError:
    raise TypeError(f"xjax cannot lower arrays of dtype {dtype}") from None


_TENSOR_TYPES: dict = {}


class _TokenType:
  """The type of effect tokens: an operand or result type that ``tensor_type`` names, so
  rules thread a token through ``op`` and ``region`` like any value."""
  shape = dtype = "token"

  def __repr__(self) -> str:
    return "!stablehlo.token"


TOKEN = _TokenType()
_TENSOR_TYPES[(TOKEN.shape, TOKEN.dtype)] = "!stablehlo.token"


def tensor_type(aval: ShapedArray) -> str:
  key = (aval.shape, aval.dtype)
  text = _TENSOR_TYPES.get(key)
  if text is None:
    stored = physical_aval(aval)  # PRNG keys are stored as uint32 arrays
    _check_static(aval)
    _check_addressable(stored)
    dims = "".join(f"{d}x" for d in stored.shape)
    text = _TENSOR_TYPES[key] = f"tensor<{dims}{element_type(stored.dtype)}>"
  return text


_MAX_BYTES = 2**63 - 1  # XLA sizes buffers with int64 byte counts


def _check_static(aval: ShapedArray) -> None:
  """Symbolic dimensions are traced, never lowered: NotImplementedError saying so."""
  if not all(type(d) is int for d in aval.shape):
    raise NotImplementedError(
        f"xjax cannot compile or export a function with symbolic (shape-polymorphic) "
        f"dimensions: it has a value of type {aval.str_short(short_dtypes=True)}. xjax traces "
        "symbolic shapes (jax.eval_shape, jax.make_jaxpr, jit(f).trace) but compiles and "
        "exports concrete shapes only: export once per concrete shape, e.g. "
        "export(jit(f))(jax.ShapeDtypeStruct((8, 4), jnp.float32)).")


def _check_addressable(aval: ShapedArray) -> None:
  """XLA aborts the process on an array whose size overflows its int64 byte count: raise
  a MemoryError naming the shape instead (JAX aborts)."""
  nbytes = math.prod(aval.shape) * np.dtype(aval.dtype).itemsize
  if nbytes > _MAX_BYTES:
    raise MemoryError(
        f"Cannot create an array of shape {aval.shape} and dtype {np.dtype(aval.dtype).name}: "
        f"it needs {nbytes:,} bytes, more than XLA can address (2**63 - 1 bytes). Use a "
        "smaller shape.")


def dense_attr(value: np.ndarray, aval: ShapedArray) -> str:
  """A ``dense<...>`` attribute holding ``value`` bit-exactly."""
  value = np.asarray(value)
  if aval.dtype == dtypes.float0:
    value = np.zeros(aval.shape, np.bool_)
  else:
    value = np.asarray(value, dtype=aval.dtype)
  if not value.size:  # (an empty nested list would read as one dimension)
    return f"dense<> : {tensor_type(aval)}"
  if value.dtype == np.bool_:
    if value.all() or not value.any():
      return f"dense<{'true' if value.flat[0] else 'false'}> : {tensor_type(aval)}"
    body = ", ".join("true" if v else "false" for v in value.ravel())
    return f"dense<[{body}]> : {_flat_tensor(aval)}" if value.ndim <= 1 else (
        f"dense<{_nested(value)}> : {tensor_type(aval)}")
  if (value == value.flat[0]).all() and not _has_nan(value):
    raw = value.ravel()[:1].tobytes().hex().upper()
    return f'dense<"0x{raw}"> : {tensor_type(aval)}'
  raw = np.ascontiguousarray(value).tobytes().hex().upper()
  return f'dense<"0x{raw}"> : {tensor_type(aval)}'


def _has_nan(value: np.ndarray) -> bool:
  return value.dtype.kind in "fc" and bool(np.isnan(value).any())


def _flat_tensor(aval: ShapedArray) -> str:
  return tensor_type(aval)


def _nested(value: np.ndarray) -> str:
  if value.ndim == 0:
    return "true" if value else "false"
  return "[" + ", ".join(_nested(v) for v in value) + "]"


def i64_array(values: Sequence[int]) -> str:
  return f"array<i64: {', '.join(str(int(v)) for v in values)}>" if len(values) else "array<i64>"


def compare_attributes(direction: str, dtype=None, total_order: bool = False) -> dict:
  """The attributes of ``stablehlo.compare``: the direction and, given the operands'
  ``dtype``, the comparison type (floats compare in total order when asked)."""
  attrs = {"comparison_direction": f"#stablehlo<comparison_direction {direction}>"}
  if dtype is not None:
    if dtypes.is_inexact(dtype):
      kind = "TOTALORDER" if total_order else "FLOAT"
    elif dtype == np.bool_ or dtypes.is_unsigned(dtype):
      kind = "UNSIGNED"
    else:
      kind = "SIGNED"
    attrs["compare_type"] = f"#stablehlo<comparison_type {kind}>"
  return attrs


def bool_array(values: Sequence[bool]) -> str:
  body = ", ".join("true" if v else "false" for v in values)
  return f"array<i1: {body}>" if len(values) else "array<i1>"


def dense_i64(values: Sequence[int], shape=None) -> str:
  values = [int(v) for v in values]
  shape = (len(values),) if shape is None else shape
  dims = "x".join(str(d) for d in shape)
  body = ", ".join(str(v) for v in values)
  return f"dense<[{body}]> : tensor<{dims}xi64>" if values else f"dense<> : tensor<{dims}xi64>"


class Module:
  """Collects the functions of one module."""

  def __init__(self, name: str) -> None:
    self.name = name
    self.functions: list[str] = []
    self._fn_names: dict[int, str] = {}
    self._keepalive: list[Any] = []
    self._taken: set[str] = {"main"}
    self.host_callbacks: list[Callable] = []  # executables.compile's host_callbacks
    # SPMD programs: each device's place in the device assignment (partition id), the
    # meshes of the enclosing manual (shard_map) regions, innermost last, the axes each
    # makes manual (all of its mesh's, or some: a partial-manual region), and the last
    # channel id handed to a collective.
    self.logical: dict = {}
    self.mesh = None
    self.manual: list = []
    self.manual_axes: list = []
    self.channels = 0

  def next_channel(self) -> int:
    self.channels += 1
    return self.channels

  def add_host_callback(self, fn: Callable) -> int:
    """The index by which the module's host-callback custom calls name ``fn``."""
    self.host_callbacks.append(fn)
    return len(self.host_callbacks) - 1

  def function_for(self, jaxpr: ClosedJaxpr | Jaxpr, name: str) -> str:
    """Emits ``jaxpr`` as a private function once; returns its symbol name."""
    key = id(jaxpr)
    fn = self._fn_names.get(key)
    if fn is None:
      fn = _unique(_sanitize(name), self._taken)
      self._fn_names[key] = fn
      self._keepalive.append(jaxpr)
      if isinstance(jaxpr, ClosedJaxpr):
        jaxpr, consts = jaxpr.jaxpr, jaxpr.consts
      else:
        consts = ()
      self.functions.append(_lower_function(self, fn, jaxpr, consts, public=False,
                                            takes_token=bool(jaxpr.effects)))
    return fn

  def unique_name(self, name: str) -> str:
    """``name``, made a valid symbol not yet taken in this module, and taken."""
    return _unique(_sanitize(name), self._taken)

  def new_context(self, indent: str = "    ") -> "LoweringContext":
    """A context emitting into new lines of this module (a function body of its own)."""
    return LoweringContext(self, [], self.__dict__.setdefault("_counter", [0]), indent)

  def text(self) -> str:
    body = "\n".join(self.functions)
    name = _sanitize(self.name).rstrip("_") or "_"   # (as JAX names modules)
    return (f"module @{name} attributes {{mhlo.num_partitions = "
            f"{max(len(self.logical), 1)} : i32, "
            f"mhlo.num_replicas = 1 : i32}} {{\n{body}\n}}\n")


def _sanitize(name: str) -> str:
  out = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
  return out if out and not out[0].isdigit() else f"f_{out}"


def _unique(name: str, taken: set[str]) -> str:
  candidate, i = name, 0
  while candidate in taken:
    i += 1
    candidate = f"{name}_{i}"
  taken.add(candidate)
  return candidate


# How constants of the types libraries register (``mlir.register_constant_handler``) lower:
# ``type -> lower(ctx, value, aval) -> SSA name``, looked up along the value's MRO.
user_constants: dict = {}


def user_constant_lowering(value) -> Callable | None:
  """The lowering of ``value`` as a constant of a registered type, or None."""
  if user_constants:
    for t in type(value).__mro__:
      lower = user_constants.get(t)
      if lower is not None:
        return lower
  return None


class LoweringContext:
  """What a lowering rule sees: the module, the avals of the equation, and ``op``."""

  def __init__(self, module: Module, lines: list[str], counter: list[int], indent: str) -> None:
    self.module = module
    self.lines = lines
    self._counter = counter
    self.indent = indent
    self.avals_in: Sequence[ShapedArray] = ()
    self.avals_out: Sequence[ShapedArray] = ()
    self.memo: dict = {}  # per-region cache of emitted constants
    self.token: str | None = None  # orders the region's effectful operations
    self.primitive = None  # the primitive whose equation is being lowered (for errors)

  def effect_token(self) -> str:
    """The token that the next effectful operation takes (and replaces with its own)."""
    if self.token is None:
      self.token = self.fresh()
      self.declare(self.token, TOKEN)
      self.lines.append(f'{self.indent}{self.token} = "stablehlo.after_all"() : '
                        '() -> !stablehlo.token')
    return self.token

  # A control-flow operation whose regions have effects threads the token: its operands
  # and results, and its regions' arguments and results, are led by a token
  # (``give_token`` adds it, ``take_token`` takes it as the current one), so the effects
  # inside run in program order with those around it, once per iteration.

  def give_token(self, effectful: bool, values: Sequence[str]) -> list[str]:
    """``values``, led by this region's current token when ``effectful``."""
    return [self.effect_token(), *values] if effectful else list(values)

  def take_token(self, effectful: bool, values: Sequence[str]) -> list[str]:
    """``values`` without their leading token, which becomes this region's current token
    when ``effectful``."""
    if not effectful:
      return list(values)
    self.token = values[0]
    return list(values[1:])

  def scratch(self) -> "LoweringContext":
    """A context of this module emitting into its own (unindented) lines."""
    return LoweringContext(self.module, [], self._counter, "")

  def fresh(self) -> str:
    self._counter[0] += 1
    return f"%{self._counter[0]}"

  def op(self, name: str, operands: Sequence[str], out_avals, attrs: dict | None = None,
         regions: Sequence[str] = (), in_avals=None):
    """Emits one operation; returns its result name (a list when out_avals is a list)."""
    single = isinstance(out_avals, ShapedArray)
    outs = [out_avals] if single else list(out_avals)
    in_types = ", ".join(tensor_type(a) for a in (in_avals if in_avals is not None
                                                  else self._operand_avals(operands)))
    out_types = ", ".join(tensor_type(a) for a in outs)
    attr_text = ""
    if attrs:
      attr_text = " {" + ", ".join(f"{k} = {v}" for k, v in attrs.items()) + "}"
    region_text = ""
    if regions:
      region_text = " (" + ", ".join(regions) + ")"
    res = self.fresh()
    lhs = f"{res}:{len(outs)} = " if len(outs) > 1 else (f"{res} = " if outs else "")
    out_sig = f"({out_types})" if len(outs) != 1 else out_types
    self.lines.append(f'{self.indent}{lhs}"{name}"({", ".join(operands)}){region_text}'
                      f'{attr_text} : ({in_types}) -> {out_sig}')
    names = [f"{res}#{i}" for i in range(len(outs))] if len(outs) > 1 else [res] * len(outs)
    for n, a in zip(names, outs):
      self._types[n] = a
    return names[0] if single else names

  @property
  def _types(self) -> dict:
    return self.module.__dict__.setdefault("_ssa_types", {})

  def _operand_avals(self, operands):
    return [self._types[o] for o in operands]

  def aval_of(self, ssa: str) -> ShapedArray:
    return self._types[ssa]

  def declare(self, ssa: str, aval: ShapedArray) -> None:
    self._types[ssa] = aval

  def constant(self, value, aval: ShapedArray) -> str:
    """A constant; equal constants in one region are emitted once."""
    if user_constants:
      lower = user_constant_lowering(value)
      if lower is not None:
        return lower(self, value, aval)
    value = np.asarray(value)
    key = ("constant", value.tobytes(), value.dtype, aval.shape, aval.dtype)
    ssa = self.memo.get(key)
    if ssa is None:
      ssa = self.memo[key] = self.op("stablehlo.constant", [], aval,
                                     {"value": dense_attr(value, aval)})
    return ssa

  def region(self, arg_avals: Sequence[ShapedArray],
             body: Callable[["LoweringContext", list[str]], Sequence[str]],
             terminator: str = "stablehlo.return") -> str:
    """A one-block region ``({ ^bb0(args): ... terminator(results) })``."""
    lines: list[str] = []
    sub = LoweringContext(self.module, lines, self._counter, self.indent + "  ")
    args = []
    for a in arg_avals:
      name = sub.fresh().replace("%", "%rarg")
      sub.declare(name, a)
      args.append(name)
    results = list(body(sub, args))
    res_types = ", ".join(tensor_type(sub.aval_of(r)) for r in results)
    lines.append(f'{sub.indent}"{terminator}"({", ".join(results)}) : ({res_types}) -> ()')
    sig = ", ".join(f"{n}: {tensor_type(a)}" for n, a in zip(args, arg_avals))
    return "{\n" + f"{self.indent}^bb0({sig}):\n" + "\n".join(lines) + f"\n{self.indent}}}"

  def lower_jaxpr(self, jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[str]) -> list[str]:
    """Emits ``jaxpr``'s equations inline; consts are concrete values or SSA names."""
    return _lower_eqns(self, jaxpr, consts, args)

  def call(self, closed: ClosedJaxpr | Jaxpr, name: str, args: Sequence[str]) -> list[str]:
    fn = self.module.function_for(closed, name)
    jaxpr = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
    outs = list(jaxpr.out_avals)
    if jaxpr.effects:
      return self._call_with_token(fn, args, outs)
    res = self.op("func.call", args, outs, {"callee": f"@{fn}"})
    return res

  def _call_with_token(self, fn: str, args: Sequence[str], outs) -> list[str]:
    """A call that threads this region's token through a function with effects."""
    token = self.effect_token()
    in_types = ", ".join(["!stablehlo.token"] + [tensor_type(self.aval_of(a)) for a in args])
    out_types = ", ".join(["!stablehlo.token"] + [tensor_type(a) for a in outs])
    res = self.fresh()
    self.lines.append(f'{self.indent}{res}:{len(outs) + 1} = "func.call"'
                      f'({", ".join([token] + list(args))}) {{callee = @{fn}}} : '
                      f'({in_types}) -> ({out_types})')
    self.token = f"{res}#0"
    self.declare(self.token, TOKEN)
    names = [f"{res}#{i + 1}" for i in range(len(outs))]
    for n, a in zip(names, outs):
      self.declare(n, a)
    return names


# (jaxpr, consts) -> (jaxpr, consts) without the operations on refs it makes and uses
# itself (checkpoint and custom-derivative bodies may), installed by state/discharge.py.
without_local_state: list = [None]


def _lower_eqns(ctx: LoweringContext, jaxpr: Jaxpr, consts, args) -> list[str]:
  if jaxpr.effects and without_local_state[0] is not None:
    jaxpr, consts = without_local_state[0](jaxpr, consts)
  env: dict = {}
  for v, c in zip(jaxpr.constvars, consts):
    if isinstance(c, str):
      env[v] = c
    elif dtypes.is_extended(v.aval.dtype):  # a key array: embed its stored uint32 data
      env[v] = ctx.constant(c._physical_value(), physical_aval(v.aval))
    else:
      env[v] = ctx.constant(c, v.aval)
  for v, a in zip(jaxpr.invars, args):
    env[v] = a

  def read(atom):
    if type(atom) is Literal:
      return ctx.constant(atom.val, atom.aval)
    return env[atom]

  types = ctx._types
  module = ctx.module
  typed_mesh = module.mesh if module.logical and not module.manual and sharded_types[0] else None
  region = None  # a partial-manual region: (its mesh, its manual axes)
  if module.manual and len(module.manual_axes[-1]) < len(module.manual[-1].axis_names):
    region = module.manual[-1], module.manual_axes[-1]
  folds = (_transposes_to_fold(jaxpr) if typed_mesh is None and region is None else {})
  for eqn in jaxpr.eqns:
    prim = ctx.primitive = eqn.primitive
    if folds:
      fold = folds.get(id(eqn))
      if fold is True:  # a transpose its operand's producer has already made
        continue
      if fold is not None and _lower_transposed(ctx, eqn, fold, read, env):
        folds[id(fold)] = True
        continue
    if prim.lowering is None:
      raise NotImplementedError(
          f"MLIR translation rule for primitive '{prim.name}' not found (a primitive defined "
          "with xjax.extend registers one with xjax.interpreters.mlir.register_lowering, "
          "e.g. mlir.lower_fun(impl))")
    ctx.avals_in = [a.aval for a in eqn.invars]
    ctx.avals_out = [v.aval for v in eqn.outvars]
    operands = [read(a) for a in eqn.invars]
    lowering = prim.lowering
    if prim.physical_lowering is not None and _has_extended(ctx.avals_in, ctx.avals_out):
      lowering = prim.physical_lowering
    out = lowering(ctx, *operands, **eqn.params)
    outs = out if prim.multiple_results else [out]
    for v, o in zip(eqn.outvars, outs):
      got = types.get(o) if type(o) is str else None
      if got is not None and got is not v.aval and tensor_type(got) != tensor_type(v.aval):
        _invalid_result(prim, got, v.aval, ctx.avals_in)
      if typed_mesh is not None and type(o) is str:
        o = _laid_out_as_typed(ctx, o, v.aval, typed_mesh)
      elif region is not None and type(o) is str:
        o = _laid_out_in_region(ctx, o, v.aval, *region)
      env[v] = o
  return [read(a) for a in jaxpr.outvars]


def _transposes_to_fold(jaxpr: Jaxpr) -> dict:
  """{id of an equation whose primitive can lower its result transposed: the transpose
  equation that is the only use of that result}."""
  producers, uses, folds = {}, {}, {}
  for eqn in jaxpr.eqns:
    for v in eqn.invars:
      if type(v) is not Literal:
        uses[v] = uses.get(v, 0) + 1
    if eqn.primitive.lower_transposed is not None and len(eqn.outvars) == 1:
      producers[eqn.outvars[0]] = eqn
    elif eqn.primitive.name == "transpose" and eqn.invars[0] in producers:
      folds[id(producers[eqn.invars[0]])] = eqn
  outs = set(v for v in jaxpr.outvars if type(v) is not Literal)
  return {k: t for k, t in folds.items() if uses[t.invars[0]] == 1 and t.invars[0] not in outs}


def _lower_transposed(ctx, eqn, transpose, read, env) -> bool:
  """Lowers ``eqn`` with its result transposed as ``transpose`` says, into ``transpose``'s
  output; False (nothing emitted) where its primitive declines."""
  ctx.avals_in = [a.aval for a in eqn.invars]
  ctx.avals_out = [v.aval for v in transpose.outvars]
  out = eqn.primitive.lower_transposed(ctx, *[read(a) for a in eqn.invars],
                                       permutation=transpose.params["permutation"],
                                       **eqn.params)
  if out is None:
    return False
  env[transpose.outvars[0]] = out
  return True


def _laid_out_as_typed(ctx, value: str, aval, mesh):
  """``value`` annotated with the layout its type says (its Explicit axes' split over the
  program's mesh), so that XLA's partitioner follows the types rather than choosing."""
  sharding = getattr(aval, "_sharding", None)
  if (sharding is None or ctx.primitive.name == "sharding_constraint"
      or dtypes.is_extended(aval.dtype)
      or mesh.abstract_mesh.shape_tuple != sharding.mesh.shape_tuple):  # (any axis types:
    return value                            # explicit_axes types over an Auto mesh's axes)
  text = NamedSharding(mesh, sharding.spec).tiling(aval.ndim).hlo_text(ctx.module.logical)
  return ctx.op("stablehlo.custom_call", [value], aval,
                {"call_target_name": '"Sharding"', "mhlo.sharding": f'"{text}"'})


def _laid_out_in_region(ctx, value: str, aval, mesh, manual_axes):
  """``value`` inside a partial-manual region, annotated with its manual tiles and the
  split its type gives over the other Explicit axes (the dimensions it does not split left
  to XLA's choice where other axes are Auto), as JAX annotates every value there."""
  if (ctx.primitive.name == "sharding_constraint" or dtypes.is_extended(aval.dtype)
      or not hasattr(aval, "ndim")):
    return value
  sharding = getattr(aval, "_sharding", None)
  parts = list(sharding.spec) if sharding is not None else [None] * aval.ndim
  attributes = {"call_target_name": '"Sharding"', "mhlo.sharding":
                f'"{partial_manual_hlo_text(mesh, manual_axes, parts, ctx.module.logical)}"'}
  if any(a not in manual_axes for a in mesh.auto_axes):
    free = [d for d, p in enumerate(parts) if p is None]
    attributes["backend_config"] = f'"unspecified_dims=[{",".join(map(str, free))}]"'
  return ctx.op("stablehlo.custom_call", [value], aval, attributes)


def _invalid_result(prim, got, want, avals_in):
  """Stops a program whose StableHLO would not verify, naming the primitive at fault."""
  raise AssertionError(
      f"lowering of '{prim.name}' produced {tensor_type(got)} for a result of type "
      f"{tensor_type(want)} (operands {', '.join(map(str, avals_in))}): an xjax bug in that "
      "primitive's rules; please report it")


def _has_extended(avals_in, avals_out) -> bool:
  return any(dtypes.is_extended(a.dtype) for a in (*avals_in, *avals_out))


class SpmdLayout:
  """How a program is partitioned: ``logical`` maps each device to its partition id;
  ``in_texts``/``out_texts`` give each parameter (constvars first) and result its HLO
  sharding text, or None to let XLA choose; ``mesh`` is the mesh the program runs over."""

  def __init__(self, logical: dict, in_texts, out_texts, mesh=None) -> None:
    self.logical, self.in_texts, self.out_texts = logical, list(in_texts), list(out_texts)
    self.mesh = mesh


def _sharding_attr(text) -> str:
  return f'mhlo.sharding = "{text}"' if text is not None else ""


def _lower_function(module: Module, name: str, jaxpr: Jaxpr, consts, public: bool,
                    const_args: bool = False, takes_token: bool = False,
                    aliases=None, layout: SpmdLayout | None = None,
                    embedded: dict | None = None) -> str:
  """``takes_token``: the function takes a token first and returns the token its
  effects leave first, so they run in program order with the caller's.  ``aliases[i]``:
  the output that invar i's (donated) buffer may hold, ``"donor"`` (any output XLA finds
  it fits), or None.  ``layout``: the
  shardings of ``main``'s parameters and results.  ``embedded[i]``: the value of
  constvar i, written into the function as a constant instead of taken as a parameter."""
  lines: list[str] = []
  ctx = LoweringContext(module, lines, module.__dict__.setdefault("_counter", [0]), "    ")
  embedded = embedded or {}
  if const_args:
    params = [v for i, v in enumerate(jaxpr.constvars) if i not in embedded]
    params += list(jaxpr.invars)
  else:
    params = list(jaxpr.invars)
  arg_names = []
  token_param = None
  if takes_token:
    token_param = ctx.token = ctx.fresh().replace("%", "%tok")
    ctx.declare(token_param, TOKEN)
  for i, v in enumerate(params):
    n = f"%arg{module.__dict__.setdefault('_argc', [0])[0]}"
    module._argc[0] += 1
    ctx.declare(n, v.aval)
    arg_names.append(n)
  if const_args:
    names = iter(arg_names)
    const_ssa = [ctx.constant(embedded[i], v.aval) if i in embedded else next(names)
                 for i, v in enumerate(jaxpr.constvars)]
    outs = _lower_eqns(ctx, jaxpr, const_ssa, list(names))
  else:
    outs = _lower_eqns(ctx, jaxpr, consts, arg_names)
  out_types = ", ".join(tensor_type(a) for a in jaxpr.out_avals)
  result_sig = out_types
  attrs = [[] for _ in params]
  if aliases:
    first = len(params) - len(jaxpr.invars)
    for i, out in enumerate(aliases):
      if out == "donor":  # (XLA may reuse the buffer for an output it fits)
        attrs[first + i].append("jax.buffer_donor = true")
      elif out is not None:
        attrs[first + i].append(f"tf.aliasing_output = {out} : i32")
  if layout is not None:
    for a, text in zip(attrs, layout.in_texts):
      a.append(_sharding_attr(text))
    result_sig = ", ".join(f"{tensor_type(a)} {{{_sharding_attr(t)}}}" if t else tensor_type(a)
                           for a, t in zip(jaxpr.out_avals, layout.out_texts))
  sig = ", ".join(f"{n}: {tensor_type(v.aval)}" + (
                      f" {{{', '.join(x for x in attr if x)}}}" if any(attr) else "")
                  for n, v, attr in zip(arg_names, params, attrs))
  if takes_token:
    outs = [ctx.effect_token()] + outs
    out_types = result_sig = ", ".join(["!stablehlo.token"]
                                       + [tensor_type(a) for a in jaxpr.out_avals])
    sig = ", ".join([f"{token_param}: !stablehlo.token"] + ([sig] if sig else []))
  lines.append(f"    func.return {', '.join(outs)} : {out_types}" if outs else "    func.return")
  visibility = "public" if public else "private"
  return (f"  func.func {visibility} @{name}({sig}) -> ({result_sig}) {{\n" + "\n".join(lines)
          + "\n  }")


def lower_module(jaxpr: Jaxpr, name: str, host_callbacks: list | None = None,
                 aliases=None, layout: SpmdLayout | None = None,
                 embedded: dict | None = None) -> str:
  """A module whose ``main`` takes the jaxpr's constvars, then its invars.  The Python
  callables its host callbacks run are appended to ``host_callbacks`` (pass them to
  ``executables.compile``).  ``aliases[i]`` names the output that invar i's donated buffer
  holds (``tf.aliasing_output``), so XLA writes that output in place (``"donor"``: XLA
  picks one, ``jax.buffer_donor``).  With a ``layout``
  the module is an SPMD program over its devices.  ``embedded[i]`` is the value of
  constvar i when it is written into the module rather than taken as a parameter."""
  with monitoring.timed(monitoring.JAXPR_TO_MLIR_MODULE_EVENT, f"jit({name})"):
    module = Module(f"jit_{name}")
    if layout is not None:
      module.logical, module.mesh = layout.logical, layout.mesh
    main = _lower_function(module, "main", jaxpr, (), public=True, const_args=True,
                           aliases=aliases, layout=layout, embedded=embedded)
    module.functions.insert(0, main)
    if host_callbacks is not None:
      host_callbacks.extend(module.host_callbacks)
    return module.text()


def lower_self_contained(closed: ClosedJaxpr, name: str, host_callbacks: list) -> str:
  """A module whose ``main`` takes only the jaxpr's invars, every constant written into it
  (a program that stands alone, as ``export`` stores it)."""
  module = Module(f"jit_{name}")
  module.functions.insert(0, _lower_function(module, "main", closed.jaxpr, closed.consts,
                                             public=True))
  host_callbacks.extend(module.host_callbacks)
  return module.text()
