"""Error classes (``jax.errors``)."""
from xjax._src.foundations.errors import (ConcretizationTypeError, KeyReuseError,  # noqa: F401
                                          NonConcreteBooleanIndexError, TracerArrayConversionError,
                                          TracerBoolConversionError, TracerIntegerConversionError,
                                          UnexpectedTracerError, JAXTypeError, JAXIndexError,
                                          InconclusiveDimensionOperation, JaxprTypeError)
from xjax._src.backend.jaxlib_api import XlaRuntimeError as JaxRuntimeError  # noqa: F401,E402
