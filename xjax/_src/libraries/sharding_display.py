"""``xjax.debug.visualize_sharding`` / ``visualize_array_sharding``: a text picture of which
device holds which block of a 1-D or 2-D array.

The geometry follows JAX's: a 2-D array is drawn ``10 * scale`` lines high and as wide as
its aspect ratio asks (characters counted as 2.5 times taller than wide), each block in
proportion; a 1-D array is one line.  Cells are clamped to ``[min_width, max_width]``.
"""
from __future__ import annotations

from typing import Sequence

_CHAR_ASPECT = 2.5  # a terminal character is about 2.5 times taller than wide


def visualize_sharding(shape: Sequence[int], sharding, *, use_color: bool = True,
                       scale: float = 1.0, min_width: int = 9, max_width: int = 80,
                       color_map=None) -> None:
  """Prints the blocks of an array of ``shape`` laid out as ``sharding``, each labelled with
  the devices holding it.  Output is plain text (as JAX prints when not on a terminal):
  ``use_color`` and ``color_map`` have no effect."""
  print(render_sharding(shape, sharding, scale=scale, min_width=min_width,
                        max_width=max_width))


def visualize_array_sharding(arr, **kwargs) -> None:
  """``visualize_sharding`` of ``arr``'s shape and sharding."""
  visualize_sharding(arr.shape, arr.sharding, **kwargs)


def render_sharding(shape: Sequence[int], sharding, *, scale: float = 1.0,
                    min_width: int = 9, max_width: int = 80) -> str:
  """The picture ``visualize_sharding`` prints, as a string."""
  shape = tuple(shape)
  if len(shape) not in (1, 2):
    raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 dimensions.")
  base_height = int(10 * scale)
  base_width = int(base_height * (shape[1] if len(shape) == 2 else 1) / shape[0])
  kind = next(iter(sharding.device_set)).platform.upper()
  cells: dict = {}  # (row, col) -> [device ids, width, height]
  for device, index in sharding.devices_indices_map(shape).items():
    spans = [_span(s, n) for s, n in zip(index, shape)]
    fractions = [(stop - start) / n for (start, stop), n in zip(spans, shape)]
    chunk = tuple(start // max(stop - start, 1) for start, stop in spans)
    if len(shape) == 1:
      chunk, height = (0, *chunk), 1
    else:
      height = int(fractions[0] * base_height)
    width = min(max(int(fractions[-1] * base_width * _CHAR_ASPECT), min_width), max_width)
    cell = cells.setdefault(chunk, [set(), width, height])
    cell[0].add(device.id)
  rows = max(r for r, _ in cells) + 1
  cols = max(c for _, c in cells) + 1
  labels = {k: f"{kind} " + ",".join(str(i) for i in sorted(v[0])) for k, v in cells.items()}
  # inner width of a cell: its width less the two padding columns, never less than its label
  inner = {k: max(w - 2, len(labels[k])) for k, (_, w, _) in cells.items()}
  col_width = [max(inner[r, c] for r in range(rows)) for c in range(cols)]
  row_height = [max(max(cells[r, c][2] - 2, 0) + 1 for c in range(cols)) for r in range(rows)]

  def rule(left, middle, right):
    return left + middle.join("─" * w for w in col_width) + right

  lines = [rule("┌", "┬", "┐")]
  for r in range(rows):
    for line in range(row_height[r]):
      parts = []
      for c in range(cols):
        top = max(cells[r, c][2] - 2, 0) // 2
        text = labels[r, c] if line == top else ""
        pad = col_width[c] - len(text)
        parts.append(" " * (pad // 2) + text + " " * (pad - pad // 2))
      lines.append("│" + "│".join(parts) + "│")
    lines.append(rule("├", "┼", "┤") if r < rows - 1 else rule("└", "┴", "┘"))
  return "\n".join(lines)


def _span(index, size: int) -> tuple[int, int]:
  """(start, stop) of one dimension of a device's block (an int index is one element)."""
  if isinstance(index, slice):
    start, stop, _ = index.indices(size)
    return start, stop
  return int(index), int(index) + 1
