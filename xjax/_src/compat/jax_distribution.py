"""The `jax` distribution's metadata while xjax stands in for jax: libraries ask
`importlib.metadata.version("jax")` (quax, packaging checks) as often as `jax.__version__`."""
from __future__ import annotations

import importlib.metadata
import pathlib
import re

_METADATA = """\
Metadata-Version: 2.1
Name: jax
Version: {version}
Summary: xjax, standing in for jax {version} (`python -m xjax` or xjax.install_as_jax())
Requires-Python: >=3.11
Requires-Dist: jaxlib
Requires-Dist: ml_dtypes
Requires-Dist: numpy
Requires-Dist: scipy
"""


class JaxDistribution(importlib.metadata.Distribution):
  """The metadata a `jax` wheel of `version` installs: its name, version, requirements and
  top-level package; it has no RECORD, so `files` is None."""

  def __init__(self, version: str) -> None:
    self._files = {"METADATA": _METADATA.format(version=version), "top_level.txt": "jax\n"}

  def read_text(self, filename):
    return self._files.get(filename)

  def locate_file(self, path):
    """`path` beside the package that `import jax` loads, as in a wheel's site-packages."""
    import xjax
    return pathlib.Path(xjax.__path__[0]).parent / path


def find_jax_distributions(context, version: str) -> list[JaxDistribution]:
  """What `importlib.metadata` discovers for `context` (a name, or every distribution)."""
  name = context.name
  if name is not None and re.sub(r"[-_.]+", "_", name).lower() != "jax":
    return []
  return [JaxDistribution(version)]
