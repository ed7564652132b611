"""Array memory layouts (``jax.experimental.layout``)."""
from xjax._src.foundations.layout import Format, Layout, with_layout_constraint  # noqa: F401
