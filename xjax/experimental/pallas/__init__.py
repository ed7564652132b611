"""Pallas kernels (``jax.experimental.pallas``), run in interpret mode."""
from xjax._src.libraries.pallas.grid import (  # noqa: F401
    num_programs, program_id, when)
from xjax._src.libraries.pallas.pallas_call import (  # noqa: F401
    pallas_call, pallas_call_p)
from xjax._src.libraries.pallas.specs import (  # noqa: F401
    ANY, HOST, Blocked, BlockSpec, CompilerParams, CostEstimate, GridSpec, MemoryRef,
    MemorySpace, Squeezed, cdiv, next_power_of_2, no_block_spec, squeezed,
    strides_from_shape)
from xjax._src.primitives.state.dslice import Slice, ds, dslice  # noqa: F401
