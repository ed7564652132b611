"""``jax.extend.xla``: passes of one's own in XLA's compilation pipeline."""
from __future__ import annotations

import enum
from typing import Callable, Sequence

from xjax._src.backend import clients as _clients


class PipelineStage(enum.Enum):
  PRE_SCHEDULER = 0
  POST_SCHEDULER = 1


def _stage_and_platforms(stage, platforms) -> tuple[int, list | None]:
  if not isinstance(stage, PipelineStage):
    raise TypeError(f"stage must be a PipelineStage enum, got {type(stage)}")
  if platforms is not None:
    platforms = [platforms] if isinstance(platforms, str) else list(dict.fromkeys(platforms))
  return stage.value, platforms


def register_hlo_module_transformation(callback: Callable[[bytes], bytes | None], *, name: str,
                                       stage: PipelineStage = PipelineStage.PRE_SCHEDULER,
                                       platforms: Sequence[str] | str | None = None) -> None:
  """Has XLA call ``callback(serialized HloModuleProto)`` at ``stage`` of every
  compilation for ``platforms`` (default: all); it returns the transformed module's
  serialized proto, or None to leave the module as it is.  Passes registered at one stage
  run in registration order; programs compiled before are not compiled again."""
  stage_id, platforms = _stage_and_platforms(stage, platforms)
  _clients.register_xla_transform(name, stage_id, callback, platforms)


def clear_hlo_module_transformation(name: str,
                                    stage: PipelineStage = PipelineStage.PRE_SCHEDULER,
                                    platforms: Sequence[str] | str | None = None) -> bool:
  """Removes the pass ``name`` registered at ``stage``; whether there was one."""
  stage_id, platforms = _stage_and_platforms(stage, platforms)
  return _clients.clear_xla_transform(name, stage_id, platforms)
