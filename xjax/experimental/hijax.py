"""The hijax extension API (``jax.experimental.hijax``): primitives written as classes and
high-level types (see xjax/_src/primitives/hijax.py for what xjax supports of them)."""
from xjax._src.core.effects import control_flow_allowed_effects  # noqa: F401
from xjax._src.core.avals import ShapedArray  # noqa: F401
from xjax._src.core.trace import aval_method, aval_property  # noqa: F401
from xjax._src.primitives.hijax import (AbstractValue, AvalMutableQDD, AvalQDD,  # noqa: F401
                                        HiPrimitive, HiPspec, HiType, MutableHiType, TransformedRef,
                                        VJPHiPrimitive, register_hitype)
from xjax._src.interpreters.ad import Zero  # noqa: F401
from xjax._src.interpreters.ad import instantiate as instantiate_zeros  # noqa: F401
from xjax._src.interpreters.ad import is_undefined as is_undefined_primal  # noqa: F401
from xjax._src.primitives.state.types import AbstractRef  # noqa: F401
