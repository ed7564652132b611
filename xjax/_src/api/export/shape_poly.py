"""Shape polymorphism of ``jax.export``. xjax cannot export shape-polymorphic functions (its
shapes are tuples of Python ints while tracing: ``symbolic_shape`` and the other
constructors raise), but it reads and calls JAX's polymorphic exports: their dimensions are
``SymbolicDim``s parsed from the expressions JAX writes ("b", "2*a*b + 3", "floordiv(a, 2)",
...), evaluated against the concrete shapes of a call by ``solve``."""
from __future__ import annotations

import re
from typing import Sequence

_WHY = ("xjax does not support shape polymorphism: shapes are static Python ints while "
        "tracing. Export once per concrete shape instead, e.g. "
        "export(jit(f))(jax.ShapeDtypeStruct((8, 4), jnp.float32)).")


def symbolic_shape(shape_spec, *, constraints=(), scope=None, like=None):
  """Not supported (see the module docstring)."""
  raise NotImplementedError(f"symbolic_shape({shape_spec!r}): {_WHY}")


def symbolic_args_specs(args, shapes_specs, constraints=(), scope=None):
  """Not supported (see the module docstring)."""
  raise NotImplementedError(f"symbolic_args_specs: {_WHY}")


class SymbolicScope:
  """Not supported (see the module docstring)."""

  def __init__(self, constraints_str=()) -> None:
    raise NotImplementedError(f"SymbolicScope: {_WHY}")


def is_symbolic_dim(p) -> bool:
  """Whether ``p`` is a symbolic dimension (of a deserialized polymorphic ``Exported``)."""
  return isinstance(p, SymbolicDim)


# ---------------------------------------------------------------------------------------
# Dimension expressions: a polynomial with integer coefficients, {monomial: coefficient},
# a monomial a sorted tuple of (atom, power), an atom a variable name or an operation
# ("floordiv" | "mod" | "max" | "min", polynomial, polynomial).

_OPS = {"floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b, "max": max, "min": min}
_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_.]*)|(.))")


def _poly(terms: dict) -> tuple:
  return tuple(sorted(((m, c) for m, c in terms.items() if c), key=repr))


def _add(p: tuple, q: tuple, sign: int = 1) -> tuple:
  out = dict(p)
  for m, c in q:
    out[m] = out.get(m, 0) + sign * c
  return _poly(out)


def _mul(p: tuple, q: tuple) -> tuple:
  out: dict = {}
  for m1, c1 in p:
    for m2, c2 in q:
      powers = dict(m1)
      for atom, k in m2:
        powers[atom] = powers.get(atom, 0) + k
      m = tuple(sorted(powers.items(), key=repr))
      out[m] = out.get(m, 0) + c1 * c2
  return _poly(out)


class _Parser:
  """Recursive descent over JAX's printed dimension expressions."""

  def __init__(self, text: str) -> None:
    self.text = text
    self.tokens = [t for t in _TOKEN.findall(text) if any(t)]
    self.i = 0

  def fail(self):
    raise ValueError(f"syntax error in symbolic dimension {self.text!r}")

  def peek(self):
    return self.tokens[self.i] if self.i < len(self.tokens) else ("", "", "")

  def take(self, sym: str | None = None):
    tok = self.peek()
    if sym is not None and tok[2] != sym:
      self.fail()
    self.i += 1
    return tok

  def parse(self) -> tuple:
    p = self.expr()
    if self.i != len(self.tokens):
      self.fail()
    return p

  def expr(self) -> tuple:
    sign = -1 if self.peek()[2] == "-" and self.take() else 1
    p = _mul((((), sign),), self.term())
    while self.peek()[2] in ("+", "-"):
      sign = 1 if self.take()[2] == "+" else -1
      p = _add(p, self.term(), sign)
    return p

  def term(self) -> tuple:
    p = self.power()
    while self.peek()[2] == "*":
      self.take()
      p = _mul(p, self.power())
    return p

  def power(self) -> tuple:
    p = self.atom()
    if self.peek()[2] == "^":
      self.take()
      k = int(self.take()[0] or self.fail())
      q = (((), 1),)
      for _ in range(k):
        q = _mul(q, p)
      p = q
    return p

  def atom(self) -> tuple:
    num, name, sym = self.take()
    if num:
      return (((), int(num)),)
    if sym == "(":
      p = self.expr()
      self.take(")")
      return p
    if not name:
      self.fail()
    if name in _OPS and self.peek()[2] == "(":
      self.take("(")
      a = self.expr()
      self.take(",")
      b = self.expr()
      self.take(")")
      return (((((name, a, b), 1),), 1),)
    return ((((name, 1),), 1),)


def _evaluate(p: tuple, env: dict) -> int:
  def atom(a):
    return env[a] if isinstance(a, str) else _OPS[a[0]](_evaluate(a[1], env),
                                                       _evaluate(a[2], env))
  total = 0
  for m, c in p:
    v = c
    for a, k in m:
      v *= atom(a) ** k
    total += v
  return total


def _variables(p: tuple) -> set:
  out: set = set()
  for m, _ in p:
    for a, _ in m:
      out |= {a} if isinstance(a, str) else _variables(a[1]) | _variables(a[2])
  return out


class SymbolicDim:
  """A dimension given by an expression over dimension variables; prints as JAX wrote it,
  compares by its normalized polynomial."""
  __slots__ = ("text", "_poly")

  def __init__(self, text: str) -> None:
    self.text = text.strip()
    self._poly = _Parser(self.text).parse()

  def __str__(self) -> str:
    return self.text

  __repr__ = __str__

  def __eq__(self, other) -> bool:
    if isinstance(other, SymbolicDim):
      return self._poly == other._poly
    return isinstance(other, int) and self._poly == _poly({(): other})

  def __hash__(self) -> int:
    return hash(self._poly)

  def variables(self) -> set:
    return _variables(self._poly)

  def evaluate(self, env: dict) -> int:
    return _evaluate(self._poly, env)

  def _solve_one(self, env: dict, value: int):
    """(variable, value) where this dimension is ``c*v + known`` for one unknown ``v``."""
    unknown = [mc for mc in self._poly if _variables((mc,)) - env.keys()]
    if len(unknown) != 1 or len(unknown[0][0]) != 1:
      return None
    ((atom, k),), c = unknown[0]
    if not isinstance(atom, str) or k != 1:
      return None
    rest = _evaluate(tuple(mc for mc in self._poly if mc != unknown[0]), env)
    return atom, (value - rest) // c, (value - rest) % c == 0


def parse_dim(text: str):
  """A dimension as JAX serializes it: an int, or a ``SymbolicDim``."""
  text = text.strip()
  return int(text) if re.fullmatch(r"-?\d+", text) else SymbolicDim(text)


_SEE = ("Please see https://docs.jax.dev/en/latest/export/shape_poly.html"
        "#shape-assertion-errors for more details.")


def solve(avals: Sequence, shapes: Sequence[tuple], names: Sequence[str]) -> dict:
  """The values of the dimension variables of ``avals`` (symbolic shapes) given the
  concrete ``shapes`` of a call, checked as JAX checks them (``names`` print the arguments:
  "args[0]")."""
  env: dict = {}
  found: list[str] = []
  dims = [(f"{n}.shape[{i}]", d, s[i]) for n, a, s in zip(names, avals, shapes)
          for i, d in enumerate(a.shape) if isinstance(d, SymbolicDim)]
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
