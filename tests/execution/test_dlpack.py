"""DLPack exchange with NumPy and PyTorch, both ways, on CPU: values and dtypes, when the
memory is shared (checked by pointer and by mutating the source), strided sources, and
``__dlpack__``'s keywords.  Expected behaviour is JAX 0.10.2's (this file, with `xjax` read
as `jax`, passes on it except where docs/differences.md says otherwise: ``copy=True`` and
transposed sources)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import dlpack, random
from xjax.errors import JaxRuntimeError

# every dtype is_supported_dtype accepts; NumPy's DLPack has no bfloat16
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
WIDE = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}


def aligned(shape, dtype, offset=0):
  """A NumPy array whose data starts ``offset`` bytes past a 64-byte boundary, holding
  0, 1, 2, ... (mod 2 for bool)."""
  dtype = np.dtype(dtype)
  size = int(np.prod(shape))
  raw = np.empty(size * dtype.itemsize + 128, np.uint8)
  start = (-raw.ctypes.data) % 64 + offset
  out = raw[start:start + size * dtype.itemsize].view(dtype).reshape(shape)
  out[...] = (np.arange(size) % 2 if dtype == bool else np.arange(size)).reshape(shape)
  return out


def computed(x):
  return (jnp.asarray(x) + 0).block_until_ready()


# ---------------------------------------------------------------------------------------
# NumPy -> xjax

@pytest.mark.parametrize("name", DTYPES)
def test_from_numpy_aliases_aligned_data(name):
  a = aligned((2, 3), name)
  j = jnp.from_dlpack(a)
  assert j.committed and j.devices() == {xjax.devices()[0]} and j.shape == (2, 3)
  if name in WIDE:  # canonicalized without x64: a converted copy, as JAX
    assert j.dtype == WIDE[name] and j.unsafe_buffer_pointer() != a.ctypes.data
    np.testing.assert_array_equal(j, a.astype(WIDE[name]))
    return
  assert j.dtype == name and j.unsafe_buffer_pointer() == a.ctypes.data
  np.testing.assert_array_equal(np.asarray(j), a)
  a[0, 1] = a[1, 1]  # the source's change shows: the memory is shared
  assert j[0, 1] == a[1, 1] and (j + 0)[0, 1] == a[1, 1]


def test_from_numpy_64_bit_aliases_with_x64(x64):
  for name in WIDE:
    a = aligned((4,), name)
    j = jnp.from_dlpack(a)
    assert j.dtype == name and j.unsafe_buffer_pointer() == a.ctypes.data


@pytest.mark.parametrize("offset", [8, 16, 32])
def test_from_numpy_copies_unaligned_data(offset):
  a = aligned((16,), np.float32, offset)
  j = jnp.from_dlpack(a)
  assert j.unsafe_buffer_pointer() != a.ctypes.data
  a[0] = 99
  assert float(j[0]) == 0.0
  with pytest.raises(ValueError, match="not aligned to 64 bytes"):
    jnp.from_dlpack(a, copy=False)
  assert jnp.from_dlpack(aligned((16,), np.float32), copy=False).shape == (16,)


def test_from_numpy_copy_true_copies():
  a = aligned((4,), np.float32)
  j = jnp.from_dlpack(a, copy=True)  # JAX 0.10.2 still shares aligned data here
  a[0] = 7
  assert j.unsafe_buffer_pointer() != a.ctypes.data and float(j[0]) == 0.0


def test_from_numpy_views_rows_and_sizes():
  m = aligned((4, 4), np.float32)
  rows = jnp.from_dlpack(m[:2])  # a row slice is compact: shared
  assert rows.unsafe_buffer_pointer() == m.ctypes.data
  np.testing.assert_array_equal(rows, m[:2])
  assert jnp.from_dlpack(m[1:]).unsafe_buffer_pointer() != m.ctypes.data  # 16 bytes in: copied
  one = np.lib.stride_tricks.as_strided(m, (1, 4), (999 * 4, 4))  # a size-1 dim's stride
  assert jnp.from_dlpack(one).unsafe_buffer_pointer() == m.ctypes.data
  assert jnp.from_dlpack(aligned((), np.float32)).shape == ()
  assert jnp.from_dlpack(np.ones((0, 3), np.float32)).shape == (0, 3)


def test_from_numpy_strided_sources_raise_as_jax():
  m = aligned((3, 4), np.float32)
  for strided in (m[:, ::2], m[::2], np.lib.stride_tricks.as_strided(m, (3, 4), (0, 4))):
    with pytest.raises(JaxRuntimeError, match="UNIMPLEMENTED: Only DLPack tensors with "
                                              "trivial"):
      jnp.from_dlpack(strided)


def test_from_numpy_transposed_sources_are_copied():
  m = aligned((2, 3, 4), np.float32)
  for view in (m[0].T, m.transpose(1, 0, 2), m.transpose(2, 0, 1), np.asfortranarray(m)):
    j = jnp.from_dlpack(view)
    np.testing.assert_array_equal(np.asarray(j), view)
    np.testing.assert_array_equal(xjax.jit(lambda x: x * 2)(j), view * 2)
    assert j.unsafe_buffer_pointer() != view.ctypes.data
  with pytest.raises(ValueError, match="transposed"):
    jnp.from_dlpack(m[0].T, copy=False)


def test_from_dlpack_device_and_errors():
  a = aligned((3,), np.float32)
  device = xjax.devices()[0]
  for target in (device, xjax.sharding.SingleDeviceSharding(device)):
    j = jnp.from_dlpack(a, device=target)
    assert j.devices() == {device} and j.unsafe_buffer_pointer() == a.ctypes.data
  assert xjax.dlpack.from_dlpack(a).unsafe_buffer_pointer() == a.ctypes.data
  for bad in (object(), a.__dlpack__()):  # a bare capsule is not accepted, as JAX
    with pytest.raises(TypeError, match="^The array passed to from_dlpack must have "
                                        "__dlpack__ and __dlpack_device__ methods.$"):
      jnp.from_dlpack(bad)


# ---------------------------------------------------------------------------------------
# xjax -> NumPy

@pytest.mark.parametrize("name", [name for name in DTYPES if name not in WIDE])
def test_numpy_views_xjax_arrays(name):
  z = _xjax_array(name)
  n = np.from_dlpack(z)
  assert n.dtype == name and n.shape == (2, 3) and not n.flags.writeable
  assert n.ctypes.data == z.unsafe_buffer_pointer()
  np.testing.assert_array_equal(n, np.asarray(z))
  assert repr(z.__dlpack_device__()) == "(<DLDeviceType.kDLCPU: 1>, 0)"


def test_numpy_from_dlpack_copy_and_device():
  z = computed(jnp.arange(4.0))
  if np.lib.NumpyVersion(np.__version__) >= "2.1.0":  # from_dlpack's copy and device
    assert np.from_dlpack(z, copy=True).ctypes.data != z.unsafe_buffer_pointer()
    assert np.from_dlpack(z, copy=False).ctypes.data == z.unsafe_buffer_pointer()
    assert np.from_dlpack(z, device="cpu").ctypes.data == z.unsafe_buffer_pointer()
  assert np.from_dlpack(z).ctypes.data == z.unsafe_buffer_pointer()
  with pytest.raises(RuntimeError, match="Unsupported dtype in DLTensor"):
    np.from_dlpack(jnp.ones(2, jnp.bfloat16))
  w = jnp.from_dlpack(z)  # xjax -> xjax shares too
  assert w.unsafe_buffer_pointer() == z.unsafe_buffer_pointer()


# ---------------------------------------------------------------------------------------
# __dlpack__'s keywords and the arrays that have none

def test_dunder_dlpack_keywords():
  z = computed(jnp.arange(4.0))
  for kwargs in ({}, {"stream": None}, {"max_version": (1, 0)}, {"max_version": (0, 5)},
                 {"max_version": (2, 0)}, {"dl_device": (1, 0)},
                 {"dl_device": (1, 0), "copy": False}, {"copy": False}, {"copy": True}):
    capsule = z.__dlpack__(**kwargs)
    assert type(capsule).__name__ == "PyCapsule" and 'capsule object "dltensor"' in repr(capsule)
  copied = np.from_dlpack(_Capsule(z, copy=True))
  assert copied.ctypes.data != z.unsafe_buffer_pointer()
  np.testing.assert_array_equal(copied, [0.0, 1.0, 2.0, 3.0])
  with pytest.raises(JaxRuntimeError, match="only implemented for GPU"):
    z.__dlpack__(stream=0)  # a CPU array has no stream to wait on
  with pytest.raises(BufferError, match=r"\(0, 5\)"):
    z.__dlpack__(max_version=(0, 4))
  with pytest.raises(BufferError, match="DLDeviceType: 99"):
    z.__dlpack__(dl_device=(99, 0))
  with pytest.raises(JaxRuntimeError, match="No matching device found for local_device_id 1"):
    z.__dlpack__(dl_device=(1, 1))
  with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
    z.__dlpack__(foo=1)
  with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
    z.__dlpack__(None)


class _Capsule:
  """A producer handing out ``array.__dlpack__(**kwargs)`` capsules."""

  def __init__(self, array, **kwargs):
    self.array, self.kwargs = array, kwargs

  def __dlpack__(self, **_):
    return self.array.__dlpack__(**self.kwargs)

  def __dlpack_device__(self):
    return self.array.__dlpack_device__()


def test_key_arrays_have_no_dlpack():
  key = random.key(0)
  assert not hasattr(key, "__dlpack__") and not hasattr(key, "__dlpack_device__")
  with pytest.raises(AttributeError, match="__dlpack__"):
    np.from_dlpack(key)
  with pytest.raises(TypeError, match="must have __dlpack__ and __dlpack_device__"):
    jnp.from_dlpack(key)
  assert np.from_dlpack(random.key_data(key) + 0).dtype == np.uint32


def test_is_supported_dtype():
  for name in [*DTYPES, "bfloat16", jnp.bfloat16, float, np.float32]:
    assert dlpack.is_supported_dtype(name)
  for name in ["float8_e4m3fn", "int4", "uint4", xjax.dtypes.float0, np.dtype("V2")]:
    assert not dlpack.is_supported_dtype(jnp.dtype(name) if isinstance(name, str) else name)
  with pytest.raises(TypeError, match="got dtype=None"):
    dlpack.is_supported_dtype(None)
  with pytest.raises(TypeError, match="Cannot interpret 'key<fry>' as a data type"):
    dlpack.is_supported_dtype(random.key(0).dtype)


# ---------------------------------------------------------------------------------------
# PyTorch, both ways (torch is optional: `pip install torch`)

@pytest.fixture
def torch():
  return pytest.importorskip("torch")


def _tensor(torch, name, shape=(2, 3)):
  """A torch tensor of dtype ``name`` holding 0, 1, 2, ... (mod 2 for bool), in memory torch
  allocated (64-byte aligned)."""
  size = int(np.prod(shape))
  if name == "bfloat16":
    return torch.arange(size, dtype=torch.float32).reshape(shape).to(torch.bfloat16)
  values = np.arange(size) % 2 if name == "bool" else np.arange(size)
  return torch.from_numpy(values.astype(name).reshape(shape)).clone()


@pytest.mark.parametrize("name", [*DTYPES, "bfloat16"])
def test_from_torch_aliases(torch, name):
  t = _tensor(torch, name)
  assert t.data_ptr() % 64 == 0
  j = jnp.from_dlpack(t)
  expected = np.asarray(t.float() if name == "bfloat16" else t).astype(WIDE.get(name, name))
  assert j.dtype == WIDE.get(name, name) and j.shape == (2, 3)
  np.testing.assert_array_equal(np.asarray(j), expected)
  if name in WIDE:
    assert j.unsafe_buffer_pointer() != t.data_ptr()
    return
  assert j.unsafe_buffer_pointer() == t.data_ptr()
  t[0, 1] = t[1, 1]  # torch's write shows in the xjax array
  assert j[0, 1] == j[1, 1] and (j + 0)[0, 1] == (j + 0)[1, 1]


def _xjax_array(name):
  values = np.arange(6) % 2 if name == "bool" else np.arange(6)
  return jnp.copy(jnp.asarray(values.reshape(2, 3), dtype=name)).block_until_ready()


@pytest.mark.parametrize("name", [name for name in DTYPES if name not in WIDE] + ["bfloat16"])
def test_torch_views_xjax_arrays(torch, name):
  _check_torch_view(torch, name)


def test_torch_views_64_bit_arrays(torch, x64):
  for name in WIDE:
    _check_torch_view(torch, name)


def _check_torch_view(torch, name):
  z = _xjax_array(name)
  assert z.dtype == name
  t = torch.from_dlpack(z)
  assert str(t.dtype) == f"torch.{name}" and tuple(t.shape) == (2, 3)
  assert t.data_ptr() == z.unsafe_buffer_pointer()
  np.testing.assert_array_equal((t.float() if name == "bfloat16" else t).numpy(),
                                np.asarray(z.astype(np.float32) if name == "bfloat16" else z))
  t[0, 0] = t[1, 2]  # shared memory: the write shows in xjax (as in JAX)
  assert z[0, 0] == z[1, 2]


def test_torch_round_trip_and_edge_shapes(torch):
  t = torch.arange(4, dtype=torch.float32)
  back = torch.from_dlpack(jnp.from_dlpack(t))
  assert back.data_ptr() == t.data_ptr()
  assert float(jnp.from_dlpack(torch.tensor(3.0))) == 3.0
  assert jnp.from_dlpack(torch.ones(0, 3)).shape == (0, 3)
  assert torch.from_dlpack(jnp.ones((0, 2))).shape == (0, 2)
  assert torch.from_dlpack(computed(jnp.float32(3))).item() == 3.0
  assert torch.from_dlpack(computed(jnp.ones(2, jnp.complex64) * 1j)).tolist() == [1j, 1j]


def test_from_torch_strided_tensors(torch):
  t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
  for strided in (t[:, ::2], t[:1].expand(3, 4)):
    with pytest.raises(JaxRuntimeError, match="UNIMPLEMENTED: Only DLPack tensors with"):
      jnp.from_dlpack(strided)
  j = jnp.from_dlpack(t.T)  # transposed: copied to row-major (JAX shares it)
  np.testing.assert_array_equal(np.asarray(j), t.T.numpy())
  rows = jnp.from_dlpack(t[1:])  # 16 bytes past torch's alignment: copied
  assert rows.unsafe_buffer_pointer() != t[1:].data_ptr()
  np.testing.assert_array_equal(rows, t[1:].numpy())
  with pytest.raises(BufferError, match="require gradient"):
    jnp.from_dlpack(torch.ones(2, requires_grad=True))


def test_traced_arrays_cannot_be_exported():
  with pytest.raises(xjax.errors.ConcretizationTypeError,
                     match=r"The __dlpack__\(\) method was called on traced array with shape "
                           r"float32\[2\]"):
    xjax.jit(lambda x: np.from_dlpack(x))(jnp.ones(2))
  with pytest.raises(TypeError, match="must have __dlpack__ and __dlpack_device__"):
    xjax.jit(jnp.from_dlpack)(jnp.ones(2))
