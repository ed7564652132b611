"""A Griffe extension for the API reference (mkdocs.yml, mkdocstrings `extensions:`): no memory
addresses and no docstrings of Python's (or NumPy's) own types on xjax's module attributes, and
the indented code in module docstrings shown as code.

The reference inspects the imported modules, so an attribute holding a float, a frozenset or a
`types.SimpleNamespace` would be shown with that type's docstring ("Convert a string or number to
a floating point number...") and an instance of a plain class with its `repr`
(`<... object at 0x7f...>`). Such attributes get the description written here instead, or none.
"""
import inspect
import re

import griffe

# objects whose type cannot carry a docstring of their own, by their path in the reference
DESCRIPTIONS = {
    "xjax.numpy.e": "Euler's number, the base of natural logarithms.",
    "xjax.numpy.euler_gamma": "The Euler-Mascheroni constant.",
    "xjax.numpy.inf": "Positive infinity (IEEE 754).",
    "xjax.numpy.nan": "Not a Number (IEEE 754 quiet NaN).",
    "xjax.numpy.pi": "The ratio of a circle's circumference to its diameter.",
    "xjax.numpy.newaxis": "`None`: in an index, `x[:, newaxis]` inserts an axis of size 1.",
    "xjax.ad": "Markers of gradient requests under JAX's names (`DontWant`, `GradRef`, ...).",
    "xjax.checkpoint_policies": "Policies for `checkpoint` (`remat`): which intermediates to save "
                                "for the backward pass (`nothing_saveable`, `dots_saveable`, ...).",
    "xjax.memory": "Memory spaces: `memory.Space.Device`, `.Host`, `.Any`.",
    "xjax.float0": "The dtype of tangents and cotangents of integer and boolean values (no data).",
    "xjax.lax.PrecisionLike": "What a `precision=` argument takes: `None`, a string, a `Precision`, "
                              "or a pair of them (one per operand).",
    "xjax.tree_util.KeyEntry": "The type of one entry of a key path (`DictKey`, `SequenceKey`, "
                               "`GetAttrKey`, `FlattenedIndexKey`).",
    "xjax.tree_util.KeyPath": "A key path: a tuple of key entries from the root to a leaf.",
    "xjax.experimental.checkify.ErrorCategory": "The type of an error category: a subclass of "
                                                "`JaxException`.",
    "xjax.experimental.checkify.all_checks": "Every check: user, NaN, index and division checks.",
    "xjax.experimental.checkify.automatic_checks": "The checks inserted automatically: NaN, index "
                                                   "and division (not user checks).",
    "xjax.experimental.checkify.div_checks": "Division by zero in integer division and remainder.",
    "xjax.experimental.checkify.float_checks": "NaN and division checks.",
    "xjax.experimental.checkify.index_checks": "Out-of-bounds indices in gathers and scatters.",
    "xjax.experimental.checkify.nan_checks": "NaNs produced by floating-point operations.",
    "xjax.experimental.checkify.user_checks": "Checks written with `checkify.check`.",
}

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_CODE_INDENT = "    "


def _fenced_module_docstring(text):
  """A module docstring (summary on its first line, written at column 0) with each run of lines
  indented by four spaces as a fenced Python block, or None when it has no such run.

  `inspect.cleandoc` would strip the indentation of a docstring whose body is all code (xjax's
  own: `import xjax as jax` ...), and the code would read as one line of text."""
  lines = text.splitlines()
  if not lines or not lines[0].strip():
    return None
  out, code, blocks = [], [], 0
  for line in [*lines, None]:                   # None: the end
    if line is not None and line.startswith(_CODE_INDENT) and line.strip():
      if not code and out and out[-1].strip():
        return None            # an indented line continuing a paragraph, not code
      code.append(line[len(_CODE_INDENT):])
    elif code and line is not None and not line.strip():
      code.append("")
    else:
      if code:
        while not code[-1].strip():
          code.pop()
        out += ["```python", *code, "```", ""]
        code, blocks = [], blocks + 1
      if line is not None:
        out.append(line)
  return "\n".join(out).strip() if blocks else None


_SENTENCE_END = re.compile(r"(?<=[a-z0-9)`'\"]\.) +(?=[A-Z`])")


def _one_line_summary(docstring):
  """The docstring with its first sentence as a line of its own: the reference's summary
  tables show a docstring's first line, and a sentence wrapped over several lines would be
  cut there. The rest of the first paragraph follows as a paragraph."""
  head, sep, rest = docstring.value.partition("\n\n")
  lines = head.splitlines()
  if len(lines) < 2 or any(line.startswith((" ", "```", "-", "*", ">")) for line in lines[1:]):
    return None
  first, *more = _SENTENCE_END.split(" ".join(line.strip() for line in lines), maxsplit=1)
  return first + "".join("\n\n" + m for m in more) + sep + rest


def _foreign_docstring(obj, docstring):
  """Whether `docstring` is that of `obj`'s type, a type defined outside xjax."""
  kind = type(obj)
  if docstring is None or not isinstance(kind.__doc__, str) or str(kind.__module__).startswith("xjax"):
    return False
  return docstring.value == inspect.cleandoc(kind.__doc__)


class ReadableValues(griffe.Extension):
  """Values without memory addresses; attributes described here rather than by their type; code
  in module docstrings as code."""

  def on_module_instance(self, *, node, mod, agent, **kwargs):
    del agent, kwargs
    text = getattr(node.obj, "__doc__", None)
    fenced = _fenced_module_docstring(text) if isinstance(text, str) else None
    if fenced is not None:
      mod.docstring = griffe.Docstring(fenced, parent=mod)

  def on_attribute_instance(self, *, node, attr, agent, **kwargs):
    del agent, kwargs
    if attr.value is not None and _ADDRESS.search(str(attr.value)):
      attr.value = None          # `<Config object at 0x...>` says nothing about it
    description = DESCRIPTIONS.get(attr.path)
    if description is not None:
      attr.docstring = griffe.Docstring(description, parent=attr)
    elif _foreign_docstring(node.obj, attr.docstring):
      attr.docstring = None

  def on_class_instance(self, *, node, cls, agent, **kwargs):
    del node, agent, kwargs
    self._summarize(cls)

  def on_function_instance(self, *, node, func, agent, **kwargs):
    del node, agent, kwargs
    self._summarize(func)
    for parameter in func.parameters:
      if parameter.default is not None and _ADDRESS.search(str(parameter.default)):
        # a sentinel default, `<object object at 0x...>`, shown as `<object object>`
        parameter.default = _ADDRESS.sub("", str(parameter.default))

  @staticmethod
  def _summarize(obj):
    if obj.docstring is not None:
      joined = _one_line_summary(obj.docstring)
      if joined is not None:
        obj.docstring = griffe.Docstring(joined, parent=obj)
