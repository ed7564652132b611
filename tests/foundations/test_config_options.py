"""`jax.config`'s options as JAX 0.10.2 defines them, its absl flags, and
`jax_explicit_x64_dtypes` (expected values recorded from the reference)."""
import subprocess
import sys

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax

# Every option of JAX 0.10.2's `jax.config.values`, with its default (enum members by value).
JAX_DEFAULTS = {
    'check_vma': False, 'eager_constant_folding': False, 'jax2tf_associative_scan_reductions':
    False, 'jax2tf_default_native_serialization': True, 'jax_allow_f16_reductions': True,
    'jax_array_garbage_collection_guard': None, 'jax_auto_pcast': True, 'jax_backend_target':
    '', 'jax_bcoo_cusparse_lowering': False, 'jax_captured_constants_report_frames': 0,
    'jax_captured_constants_warn_bytes': 2000000000, 'jax_check_proxy_envs': True,
    'jax_check_static_indices': False, 'jax_check_tracer_leaks': False,
    'jax_compilation_cache_check_contents': False, 'jax_compilation_cache_dir': None,
    'jax_compilation_cache_expect_pgle': False,
    'jax_compilation_cache_include_metadata_in_key': False, 'jax_compilation_cache_max_size':
    -1, 'jax_compiler_detailed_logging_min_ops': 10, 'jax_compiler_enable_remat_pass': True,
    'jax_cpu_collectives_implementation': 'gloo', 'jax_cpu_enable_async_dispatch': True,
    'jax_cpu_get_global_topology_timeout_minutes': 5,
    'jax_cpu_get_local_topology_timeout_minutes': 2, 'jax_cross_host_transfer_socket_address':
    '', 'jax_cross_host_transfer_timeout_seconds': None,
    'jax_cross_host_transfer_transfer_size': None, 'jax_cross_host_transport_addresses': '',
    'jax_cuda_visible_devices': 'all', 'jax_custom_vjp3': False, 'jax_debug_infs': False,
    'jax_debug_key_reuse': False, 'jax_debug_leaked_clients_on_clear_backends': False,
    'jax_debug_log_modules': '', 'jax_debug_nans': False, 'jax_default_device': None,
    'jax_default_matmul_precision': None, 'jax_default_prng_impl': 'threefry2x32',
    'jax_disable_bwd_checks': False, 'jax_disable_jit': False,
    'jax_disable_most_optimizations': False, 'jax_disable_vmap_shmap_error': False,
    'jax_disallow_mesh_context_manager': False, 'jax_distributed_debug': False,
    'jax_dump_ir_modes': 'stablehlo', 'jax_dump_ir_to': '',
    'jax_embedded_constants_max_bytes': 32, 'jax_enable_checks': False,
    'jax_enable_compilation_cache': True, 'jax_enable_custom_prng': False, 'jax_enable_pgle':
    False, 'jax_enable_preemption_service': True, 'jax_enable_recoverability': False,
    'jax_enable_x64': False, 'jax_error_checking_behavior_divide': 'ignore',
    'jax_error_checking_behavior_nan': 'ignore', 'jax_error_checking_behavior_oob': 'ignore',
    'jax_exec_time_optimization_effort': 0.0, 'jax_experimental_unsafe_xla_runtime_errors':
    False, 'jax_explain_cache_misses': False, 'jax_explicit_x64_dtypes': 1,
    'jax_export_calling_convention_version': 10, 'jax_export_ignore_forward_compatibility':
    False, 'jax_force_dcn_cross_host_transfers': False, 'jax_high_dynamic_range_gumbel':
    False, 'jax_hlo_source_file_canonicalization_regex': None,
    'jax_include_debug_info_in_dumps': True, 'jax_include_full_tracebacks_in_locations': True,
    'jax_legacy_prng_key': 'allow', 'jax_log_checkpoint_residuals': False, 'jax_log_compiles':
    False, 'jax_logging_level': 'NOTSET', 'jax_memory_fitting_effort': 0.0,
    'jax_memory_fitting_level': 'O2', 'jax_mock_gpu_topology': '', 'jax_mosaic_allow_hlo':
    False, 'jax_mutable_array_checks': True, 'jax_no_execution': False, 'jax_no_tracing':
    False, 'jax_num_cpu_devices': -1, 'jax_numpy_dtype_promotion': 'standard',
    'jax_numpy_rank_promotion': 'allow', 'jax_oneapi_visible_devices': 'all',
    'jax_optimization_level': 'UNKNOWN', 'jax_pallas_enable_debug_checks': False,
    'jax_pallas_poison_buffers': False, 'jax_pallas_use_mosaic_gpu': True,
    'jax_pallas_verbose_errors': False, 'jax_persistent_cache_enable_xla_caches':
    'xla_gpu_per_fusion_autotune_cache_dir', 'jax_persistent_cache_min_compile_time_secs':
    1.0, 'jax_persistent_cache_min_entry_size_bytes': 0, 'jax_pgle_aggregation_percentile':
    90, 'jax_pgle_profiling_runs': 3, 'jax_pjrt_client_create_options': None,
    'jax_platform_name': '', 'jax_platforms': None, 'jax_pprint_use_color': True,
    'jax_ragged_dot_use_gpu_pallas_triton_lowering': False,
    'jax_ragged_dot_use_ragged_dot_instruction': True, 'jax_raise_persistent_cache_errors':
    False, 'jax_random_seed_offset': 0, 'jax_refs_to_pins': False, 'jax_remat3': False,
    'jax_remove_custom_partitioning_ptr_from_cache_key': False,
    'jax_remove_size_one_mesh_axis_from_type': False, 'jax_rocm_visible_devices': 'all',
    'jax_scan3': False, 'jax_send_traceback_to_runtime': 'off', 'jax_serialization_version':
    0, 'jax_share_binary_between_hosts': False, 'jax_share_binary_between_hosts_timeout_ms':
    1200000, 'jax_softmax_custom_jvp': False, 'jax_sort_devices_by_process_index': True,
    'jax_source_url_schema': None, 'jax_thread_guard': False,
    'jax_threefry_gpu_kernel_lowering': False, 'jax_threefry_partitionable': True,
    'jax_traceback_filtering': 'auto', 'jax_traceback_in_locations_limit': 100,
    'jax_tracer_error_num_traceback_frames': 5, 'jax_transfer_guard': None,
    'jax_transfer_guard_device_to_device': None, 'jax_transfer_guard_device_to_host': None,
    'jax_transfer_guard_host_to_device': None, 'jax_use_direct_linearize': True,
    'jax_use_emit_pipeline_primitive': False, 'jax_use_magma': 'auto',
    'jax_use_shardy_partitioner': True, 'jax_use_simplified_jaxpr_constants': False,
    'jax_xla_backend': '', 'jax_xla_profile_version': 0, 'mock_num_gpu_processes': 0
}
# Defaults xjax chooses differently, on purpose (docs/differences.md, Configuration).
XJAX_DEFAULTS = {"jax_persistent_cache_min_compile_time_secs": 0.0}


def test_every_option_jax_defines_exists_with_its_default():
  program = ("import json, xjax; print(json.dumps({n: getattr(v, 'value', v) for n, v in "
             "xjax.config.values.items()}))")  # (a fresh process: tests may change options)
  import json
  env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("JAX_")}
  values = json.loads(subprocess.run([sys.executable, "-c", program], capture_output=True,
                                     text=True, check=True, env=env).stdout)
  assert sorted(set(JAX_DEFAULTS) - set(values)) == []
  for name, default in JAX_DEFAULTS.items():
    assert values[name] == XJAX_DEFAULTS.get(name, default), name
    assert hasattr(xjax.config, name), name
  assert {"jax_enable_x64", "jax_debug_nans", "update"} <= set(dir(xjax.config))


def test_options_xjax_cannot_honour_accept_only_their_default():
  for name, other in [("jax_scan3", True), ("jax_cpu_collectives_implementation", "mpi"),
                      ("jax_use_simplified_jaxpr_constants", True),
                      ("jax_explicit_x64_dtypes", "allow")]:
    with pytest.raises(NotImplementedError, match=name):
      xjax.config.update(name, other)
  with pytest.raises(ValueError, match="not a valid ExplicitX64Mode"):
    xjax.config.update("jax_explicit_x64_dtypes", "ALLOW")
  with pytest.raises(TypeError, match="new enum value must be an instance"):
    xjax.config.update("jax_explicit_x64_dtypes", 2)
  # options that do not change results on the CPU (the persistent cache page sets this one)
  xjax.config.update("jax_persistent_cache_enable_xla_caches", "none")
  xjax.config.update("jax_persistent_cache_enable_xla_caches",
                     JAX_DEFAULTS["jax_persistent_cache_enable_xla_caches"])


def test_explicit_x64_dtypes_error_raises_where_jax_warns():
  assert repr(xjax.config.jax_explicit_x64_dtypes) == "<ExplicitX64Mode.WARN: 1>"
  xjax.config.update("jax_explicit_x64_dtypes", "error")
  try:
    assert repr(xjax.config.jax_explicit_x64_dtypes) == "<ExplicitX64Mode.ERROR: 2>"
    for call in (lambda: jnp.zeros(3, dtype=jnp.float64), lambda: jnp.float64(1.),
                 lambda: jnp.arange(3, dtype="int64"), lambda: jnp.ones(2).astype(jnp.float64),
                 lambda: xjax.jit(lambda x: x.astype(jnp.int64))(jnp.ones(2)),
                 lambda: xjax.random.normal(xjax.random.key(0), (2,), dtype=jnp.float64)):
      with pytest.raises(ValueError, match="Explicitly requested dtype"):
        call()
    # (not an explicit request: values and Python types keep their defaults, as JAX)
    assert jnp.array(np.float64(1.)).dtype == np.float32
    assert jnp.array([1., 2.], dtype=float).dtype == np.float32
  finally:
    xjax.config.update("jax_explicit_x64_dtypes", "warn")
  with pytest.warns(UserWarning, match="Explicitly requested dtype float64"):
    assert jnp.zeros(3, dtype=jnp.float64).dtype == np.float32


_ABSL_PROGRAM = """
import sys
import xjax
sys.argv = ["prog", "--jax_enable_x64", "--jax_numpy_rank_promotion=raise",
            "--jax_default_prng_impl=rbg", "--jax_numpy_dtype_promotion=strict",
            "--not_a_jax_flag", "--", "--jax_debug_nans"]
xjax.config.parse_flags_with_absl()
xjax.config.parse_flags_with_absl()  # (once per process)
c = xjax.config
print(c.use_absl, c.jax_enable_x64, c.jax_numpy_rank_promotion, c.jax_default_prng_impl,
      c.jax_numpy_dtype_promotion, c.jax_debug_nans, xjax.numpy.ones(1).dtype)
"""


def test_parse_flags_with_absl_reads_the_jax_arguments_of_the_command_line():
  """What flax's and other libraries' test files call when they load."""
  pytest.importorskip("absl")
  out = subprocess.run([sys.executable, "-c", _ABSL_PROGRAM], capture_output=True, text=True,
                       check=True).stdout.split()
  assert out == ["True", "True", "raise", "rbg", "strict", "False", "float64"]


def test_allow_f16_reductions_false_refuses_half_float_reduce_sum():
  """As JAX 0.10.2's: lax.reduce_sum of float16/bfloat16 over more than one element raises;
  jnp.sum and the sum method compute in float32 and run; jit's cache tells the two apart."""
  x = jnp.ones((3, 1), jnp.float16)
  reduce0 = xjax.jit(lambda v: lax.reduce_sum(v, (0,)))
  assert float(reduce0(x)[0]) == 3.0
  with xjax.allow_f16_reductions(False):
    with pytest.raises(ValueError, match=r"reduce_sum on operand f16\[3,1\] is not allowed "
                       "when jax_allow_f16_reductions=False"):
      reduce0(x)
    with pytest.raises(ValueError, match="bf16"):
      lax.reduce_sum(x.astype(jnp.bfloat16), (0,))
    assert float(jnp.sum(x)) == 3.0 and x.sum(axis=0).tolist() == [3.0]
    assert lax.reduce_sum(x, (1,)).tolist() == [1.0, 1.0, 1.0]  # (size-one axes only)
  assert float(reduce0(x)[0]) == 3.0


def test_update_takes_jax_parameter_names():
  """klujax (sax) calls ``jax.config.update(name=..., val=...)``."""
  before = xjax.config.jax_numpy_rank_promotion
  try:
    xjax.config.update(name="jax_numpy_rank_promotion", val="raise")
    assert xjax.config.jax_numpy_rank_promotion == "raise"
  finally:
    xjax.config.update("jax_numpy_rank_promotion", before)
