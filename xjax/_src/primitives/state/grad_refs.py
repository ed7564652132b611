"""Where the cotangents of a VJP go (``jax.ad``): ``vjp(f, *xs)[1].with_refs(*where)``
takes, for each primal leaf, ``GradValue()`` (return the cotangent, as the plain pullback
does), a mutable ``Ref`` (add the cotangent into it; ``GradRef()`` stands in the result) or
``DontWant()`` (``DidntWant()`` stands in the result)."""
from __future__ import annotations

import dataclasses

from xjax._src.foundations import dtypes, tree_util
from xjax._src.core.values import get_aval
from xjax._src.primitives.state.primitives import ref_addupdate
from xjax._src.primitives.state.types import Ref


@dataclasses.dataclass(frozen=True, slots=True)
class GradValue:
  """Return this input's cotangent."""


@tree_util.register_dataclass
@dataclasses.dataclass(frozen=True, slots=True)
class GradRef:
  """In a result: this input's cotangent was added into the ref given for it."""


@dataclasses.dataclass(frozen=True, slots=True)
class DontWant:
  """This input's cotangent is not wanted."""


@tree_util.register_dataclass
@dataclasses.dataclass(frozen=True, slots=True)
class DidntWant:
  """In a result: this input's cotangent was not wanted."""


class VJP(tree_util.Partial):
  """The pullback ``vjp`` returns: a ``Partial`` whose leaves are the residuals."""

  def with_refs(self, *where) -> tree_util.Partial:
    """The pullback sending each input's cotangent where ``where`` (a pytree like the
    primals) says: returned (``GradValue``), added into a ``Ref``, or dropped
    (``DontWant``)."""
    in_tree = self.func.p_tree
    flat, tree = tree_util.tree_flatten(where)
    if tree != in_tree:
      raise ValueError(f"with_refs takes one GradValue(), DontWant() or Ref per primal "
                       f"input leaf, in the primals' structure {in_tree}; got {tree}.")
    for w in flat:
      if not isinstance(w, (GradValue, DontWant, Ref)):
        raise TypeError(f"with_refs takes GradValue(), DontWant() or a Ref for each primal "
                        f"input leaf; got {w!r}.")
    kinds = tuple("ref" if isinstance(w, Ref) else type(w).__name__ for w in flat)
    refs = [w for w in flat if isinstance(w, Ref)]
    return tree_util.Partial(_SendCotangents(self.func, kinds, len(self.args)),
                             *self.args, *refs)


class _SendCotangents:
  """The static part of ``VJP.with_refs``'s pullback: its arguments are the residuals,
  the refs, then the output cotangent."""
  __slots__ = ("pullback", "kinds", "n_residuals")

  def __init__(self, pullback, kinds: tuple, n_residuals: int) -> None:
    self.pullback, self.kinds, self.n_residuals = pullback, kinds, n_residuals

  def __call__(self, *args):
    n_refs = self.kinds.count("ref")
    residuals = args[:self.n_residuals]
    refs = iter(args[self.n_residuals:self.n_residuals + n_refs])
    cts = args[self.n_residuals + n_refs:]
    flat, tree = tree_util.tree_flatten(self.pullback(*residuals, *cts))
    out = []
    for kind, ct in zip(self.kinds, flat):
      if kind == "GradValue":
        out.append(ct)
      elif kind == "DontWant":
        out.append(DidntWant())
      else:
        ref = next(refs)
        if get_aval(ct).dtype != dtypes.float0:  # integer inputs have no cotangent
          ref_addupdate(ref, (), ct)
        out.append(GradRef())
    return tree_util.tree_unflatten(tree, out)


tree_util.register_pytree_node(
    VJP, lambda p: ((p.args, p.keywords), p.func),
    lambda func, children: VJP(func, *children[0], **children[1]))
