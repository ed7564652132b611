"""Names JAX 0.10.2 removed from its public modules, with the AttributeError text JAX gives
for each: the public modules' ``__getattr__`` raise it (``missing_name``)."""
from __future__ import annotations

REMOVED = {
    "xjax": {
        "device_put_replicated": "jax.device_put_replicated is deprecated; use jax.device_put "
        "instead. See https://docs.jax.dev/en/latest/migrate_pmap.html#drop-in-replacements "
        "for a drop-in replacement.",
        "device_put_sharded": "jax.device_put_sharded is deprecated; use jax.device_put "
        "instead. See https://docs.jax.dev/en/latest/migrate_pmap.html#drop-in-replacements "
        "for a drop-in replacement.",
    },
    "xjax.numpy": {
        "fix": "jax.numpy.fix was deprecated in JAX v0.9.0, and will be removed in JAX "
        "v0.10.0. Use jax.numpy.trunc instead.",
    },
    "xjax.lax": {
        "pvary": "jax.lax.pvary was deprecated in JAX v0.8.2 and removed in JAX v0.10.0; use "
        "`jax.lax.pcast(..., to='varying')",
    },
    "xjax.core": {
        "get_aval": "jax.core.get_aval was deprecated in JAX v0.8.2 and removed in JAX "
        "v0.10.0; use jax.typeof instead.",
    },
    "xjax.ad_checkpoint": {
        "checkpoint": "jax.ad_checkpoint.checkpoint was deprecated in JAX v0.8.2 and removed "
        "in JAX v0.10.0; use jax.checkpoint instead.",
        "remat": "jax.ad_checkpoint.remat was deprecated in JAX v0.8.2 and removed in JAX "
        "v0.10.0; use jax.remat instead.",
    },
    "xjax.interpreters.batching": {
        "NotMapped": "jax.interpreters.batching.NotMapped is deprecated.",
    },
    "xjax.interpreters.ad": {
        "reducing_transposes": "jax.interpreters.ad.reducing_transposes was deprecated in "
        "v0.9.0. and removed in v0.10.0. It has been unused since JAX v0.4.38.",
    },
}


def missing_name(module: str, name: str) -> AttributeError:
  """The AttributeError for ``module.name``: JAX's text where JAX removed the name."""
  text = REMOVED.get(module, {}).get(name)
  return AttributeError(text or f"module {module!r} has no attribute {name!r}")
