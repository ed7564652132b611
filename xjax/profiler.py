"""Traces, annotations and memory profiles through the XLA runtime's profiler
(``jax.profiler``)."""
from xjax._src.profiler import (  # noqa: F401
    ProfileData, ProfileEvent, ProfileOptions, ProfilePlane, StepTraceAnnotation,
    TraceAnnotation, annotate_function, device_memory_profile, register_subprocess,
    save_device_memory_profile, start_server, start_trace, stop_server, stop_trace, trace)
