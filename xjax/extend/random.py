"""``jax.extend.random``: the PRNG primitives."""
from xjax._src.random.threefry import threefry2x32_p  # noqa: F401
