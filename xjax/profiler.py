"""Traces, annotations and memory profiles through the XLA runtime's profiler
(``jax.profiler``)."""
from xjax._src.libraries.profiler import (ProfileData, ProfileEvent, ProfileOptions,  # noqa: F401
                                          ProfilePlane, StepTraceAnnotation, TraceAnnotation,
                                          annotate_function, device_memory_profile,
                                          register_subprocess, save_device_memory_profile,
                                          start_server, start_trace, stop_server, stop_trace, trace)
