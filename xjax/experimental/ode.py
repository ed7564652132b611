"""ODE integration, with the names of `jax.experimental.ode`."""
from xjax._src.libraries.ode import (abs2, fit_4th_order_polynomial,  # noqa: F401
                                     initial_step_size, interp_fit_dopri, mean_error_ratio, odeint,
                                     optimal_step_size, ravel_first_arg, runge_kutta_step)
