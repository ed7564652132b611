"""``jax.interpreters.pxla``: XLA's compile options for a program over devices."""
from xjax._src.backend import executables as _executables


def create_compile_options(computation, tuple_args: bool, allow_prop_to_inputs,
                           allow_prop_to_outputs, backend, np_dev, compiler_options: dict):
  """The options to compile ``computation`` as one replica partitioned over the devices
  ``np_dev`` (an array), with XLA choosing the layouts of the parameters and results
  flagged in ``allow_prop_to_inputs``/``allow_prop_to_outputs``; ``compiler_options`` are
  XLA option overrides (its ``fdo_profile`` entry is taken out)."""
  del computation, backend
  compiler_options = dict(compiler_options)
  fdo_profile = compiler_options.pop("fdo_profile", None)
  options = _executables.compile_options(1, np_dev.size, np_dev.reshape((1, np_dev.size)),
                                     compiler_options, fdo_profile)
  options.parameter_is_tupled_arguments = tuple_args
  build = options.executable_build_options
  build.allow_spmd_sharding_propagation_to_parameters = list(allow_prop_to_inputs)
  build.allow_spmd_sharding_propagation_to_output = list(allow_prop_to_outputs)
  return options
