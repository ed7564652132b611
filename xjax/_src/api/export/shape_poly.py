"""Shape polymorphism of ``jax.export``: ``symbolic_shape``, ``symbolic_args_specs`` and
``SymbolicScope`` make shapes with symbolic dimensions (``xjax._src.core.dim_expr``), which
``eval_shape``, ``make_jaxpr`` and ``jit(...).trace`` trace with; xjax does not lower them
(export once per concrete shape).  Deserialized JAX exports' dimensions are parsed into one
scope per export, and ``solve`` finds their variables' values from a call's shapes."""
from __future__ import annotations

import re
from typing import Sequence

from xjax._src.foundations import tree_util
from xjax._src.core.dim_expr import (SymbolicScope, _ExprParser, is_symbolic_dim,  # noqa: F401
                                     symbolic_shape)
from xjax._src.core.values import get_aval
from xjax._src.api.shape_dtype_struct import ShapeDtypeStruct


def symbolic_args_specs(args, shapes_specs, constraints=(), scope=None):
  """``ShapeDtypeStruct``s for ``args`` (a pytree of arrays or ShapeDtypeStructs) with the
  shapes ``shapes_specs`` gives: None (static shapes), one specification for every
  argument, or a pytree prefix of ``args`` of them; placeholders are filled from the
  arguments' shapes."""
  leaves, tree = tree_util.tree_flatten(args)
  if isinstance(args, tuple) and isinstance(shapes_specs, list):
    shapes_specs = tuple(shapes_specs)
  try:
    is_none = lambda x: x is None
    specs = tree_util.tree_leaves(tree_util.tree_broadcast(shapes_specs, args, is_leaf=is_none),
                                  is_leaf=is_none)
  except ValueError:
    error, *_ = tree_util.prefix_errors(shapes_specs, args, is_leaf=lambda x: x is None)
    raise error("export.symbolic_args_specs shapes_specs") from None
  if scope is None:
    scope = SymbolicScope(constraints)
  elif constraints:
    raise ValueError("Cannot use both `scope` and `constraints`")
  out = []
  for leaf, spec in zip(leaves, specs):
    aval = leaf if isinstance(leaf, ShapeDtypeStruct) else get_aval(leaf)
    out.append(ShapeDtypeStruct(symbolic_shape(spec, like=aval.shape, scope=scope),
                                aval.dtype))
  return tree.unflatten(out)


def parse_dim(text: str, scope: SymbolicScope):
  """A dimension as JAX serializes it: an int, or an expression in ``scope``."""
  text = text.strip()
  if re.fullmatch(r"-?\d+", text):
    return int(text)

  def fail(detail: str = "syntax error"):
    raise ValueError(f"syntax error in symbolic dimension {text!r}: {detail}")
  return _ExprParser(text, scope, fail).parse()


_SEE = ("Please see https://docs.jax.dev/en/latest/export/shape_poly.html"
        "#shape-assertion-errors for more details.")


def solve(avals: Sequence, shapes: Sequence[tuple], names: Sequence[str]) -> dict:
  """The values of the dimension variables of ``avals`` (symbolic shapes) given the
  concrete ``shapes`` of a call, checked as JAX checks them (``names`` print the arguments:
  "args[0]")."""
  env: dict = {}
  found: list[str] = []
  dims = [(f"{n}.shape[{i}]", d, s[i]) for n, a, s in zip(names, avals, shapes)
          for i, d in enumerate(a.shape) if is_symbolic_dim(d)]
  specs = ",".join(f"{n}.shape = {tuple(a.shape)!r}" for n, a in zip(names, avals))

  def error(what: str):
    return ValueError(
        f"Input shapes do not match the polymorphic shapes specification. {what}. Using the "
        f"following polymorphic shapes specifications: {specs}. Obtained dimension "
        f"variables: {''.join(found)}. {_SEE}")
  progress = True
  while progress:
    progress = False
    for where, d, value in dims:
      solved = d._solve_one(env, value)
      if solved is not None:
        var, val, exact = solved
        if not exact:
          raise error(f"Dimension size {where} (= {value}) is not solvable for the "
                      f"specification '{d}' in integers")
        env[var] = val
        found.append(f"'{var}' = {val} from specification '{d}' for dimension {where} "
                     f"(= {value}), ")
        if val < 1:
          raise error(f"Expected value >= 1 for dimension variable '{var}'")
        progress = True
  missing = sorted(set().union(*(d.variables() for _, d, _ in dims)) - env.keys())
  if missing:
    raise error(f"Cannot solve for values of dimension variables {missing}")
  for where, d, value in dims:
    if d.evaluate(env) != value:
      raise error(f"Found inconsistency between dimension size {where} (= {value}) and "
                  f"the specification '{d}' (= {d.evaluate(env)})")
  return env
