"""The strict, explicit layer beneath xjax.numpy (``from xjax import lax``)."""
from xjax._src.primitives.lax.lax import *  # noqa: F401,F403
from xjax._src.primitives.lax.lax import stop_gradient, full_like  # noqa: F401
from xjax._src.primitives.lax.elementwise import (  # noqa: F401
    user_convert_element_type as convert_element_type)
from xjax._src.primitives.lax.stop_gradient import stop_gradient_p  # noqa: F401
from xjax._src.primitives.lax.rounding import RoundingMethod, round  # noqa: F401
from xjax._src.primitives.lax.fft import FftType, fft, fft_p  # noqa: F401
from xjax.lax import linalg  # noqa: E402,F401
from xjax._src.primitives.lax.rng import (RandomAlgorithm, rng_bit_generator,  # noqa: F401
                                          rng_bit_generator_p, rng_uniform, rng_uniform_p)
from xjax._src.primitives.lax.dot_algorithms import (DotAlgorithm, DotAlgorithmPreset,  # noqa: F401
                                                     PrecisionLike)
from xjax._src.primitives.lax.accuracy import AccuracyMode, Tolerance  # noqa: F401
from xjax._src.primitives.lax.ragged_dot import (RaggedDotDimensionNumbers,  # noqa: F401
                                                 ragged_dot, ragged_dot_general)
from xjax._src.primitives.lax.trace_markers import dce_sink, stage  # noqa: F401
from xjax._src.primitives.lax.tokens import (after_all, after_all_p, create_token,  # noqa: F401
                                             create_token_p)
from xjax._src.primitives.lax.scaled_dot import scaled_dot  # noqa: F401
from xjax._src.primitives.lax.parallel_transfers import (pbroadcast, precv,  # noqa: F401,E402
                                                         psend, ragged_all_to_all,
                                                         ragged_all_to_all_p)
from xjax._src.libraries.staged_lax import (dynamic_index_in_dim,  # noqa: F401,E402
                                            dynamic_update_index_in_dim)


def __getattr__(name):
  from xjax._src.compat.removed_names import missing_name
  raise missing_name(__name__, name)
