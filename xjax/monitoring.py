"""Events and listeners for instrumenting code (``jax.monitoring``)."""
from xjax._src.foundations.monitoring import (clear_event_listeners, record_event,  # noqa: F401
                                              record_event_duration_secs, record_event_time_span,
                                              record_scalar, register_event_duration_secs_listener,
                                              register_event_listener,
                                              register_event_time_span_listener,
                                              register_scalar_listener,
                                              unregister_event_duration_listener,
                                              unregister_event_listener,
                                              unregister_event_time_span_listener,
                                              unregister_scalar_listener)
