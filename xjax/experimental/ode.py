"""ODE integration, with the names of `jax.experimental.ode`."""
from xjax._src.ode import (  # noqa: F401
    abs2, fit_4th_order_polynomial, initial_step_size, interp_fit_dopri, mean_error_ratio,
    odeint, optimal_step_size, ravel_first_arg, runge_kutta_step)
