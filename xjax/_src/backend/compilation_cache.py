"""The persistent compilation cache: compiled executables kept on disk, so a program is
compiled once per machine rather than once per process.

On by default, in ``$XDG_CACHE_HOME/xjax`` (else ``~/.cache/xjax``); ``jax_compilation_cache_dir``
moves it, ``jax_enable_compilation_cache=False`` or the environment variable
``XJAX_COMPILATION_CACHE=0`` turns it off. An entry is one file named by the hash of its key
(the StableHLO text, the compile options, the device and the jaxlib version), written to a
temporary file and renamed into place, so processes writing at once never see half an
entry. Each file starts with a checksum of its payload: an entry that is truncated or
corrupted is ignored and rewritten. The directory is bounded (``jax_compilation_cache_max_size``
bytes; -1 means xjax's default of 1 GiB) by evicting the least recently used entries.

This module only stores bytes; ``executables.compile`` serializes and deserializes executables.
"""
from __future__ import annotations

import hashlib
import os
import pathlib
import tempfile
import threading

from xjax._src.foundations.config import config

DEFAULT_MAX_BYTES = 1 << 30
_MAGIC = b"xjax-cc1"
_SUFFIX = ".xla"
_written = [0]          # bytes written since the directory size was last checked
_lock = threading.Lock()


def directory() -> pathlib.Path | None:
  """The cache directory, or None when the cache is off."""
  if os.environ.get("XJAX_COMPILATION_CACHE", "1") == "0":
    return None
  if not config._read("jax_enable_compilation_cache"):
    return None
  chosen = config._read("jax_compilation_cache_dir")
  if chosen:
    return pathlib.Path(chosen).expanduser()
  base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
  return pathlib.Path(base) / "xjax"


def reset() -> None:
  """Back to the state of a fresh process: the bytes written since the directory was last
  measured are forgotten (the directory and switches are read from the config at each use)."""
  with _lock:
    _written[0] = 0


def key(*parts: str) -> str:
  """The name of the entry for ``parts`` (module text, options, device, versions)."""
  h = hashlib.sha256()
  for p in parts:
    data = p.encode()
    h.update(len(data).to_bytes(8, "little"))
    h.update(data)
  return h.hexdigest()


def get(entry: str) -> bytes | None:
  """The stored payload for ``entry``; None when absent, unreadable or corrupted."""
  folder = directory()
  if folder is None:
    return None
  path = folder / (entry + _SUFFIX)
  try:
    data = path.read_bytes()
  except OSError:
    return None
  head = len(_MAGIC) + 32
  payload = data[head:]
  if data[:len(_MAGIC)] != _MAGIC or hashlib.sha256(payload).digest() != data[len(_MAGIC):head]:
    discard(entry)
    return None
  try:
    os.utime(path)  # recently used: evicted last
  except OSError:
    pass
  return payload


def put(entry: str, payload: bytes) -> None:
  """Stores ``payload`` for ``entry`` (atomically); storage errors leave the cache as it is."""
  folder = directory()
  if folder is None or len(payload) < config._read("jax_persistent_cache_min_entry_size_bytes"):
    return
  try:
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
      f.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
    os.replace(tmp, folder / (entry + _SUFFIX))
  except OSError:
    return
  with _lock:
    _written[0] += len(payload)
    check = _written[0] > _max_bytes() // 16
    if check:
      _written[0] = 0
  if check:
    _evict(folder)


def discard(entry: str) -> None:
  """Removes ``entry`` (a corrupted or unusable file)."""
  folder = directory()
  if folder is not None:
    try:
      (folder / (entry + _SUFFIX)).unlink()
    except OSError:
      pass


def _max_bytes() -> int:
  limit = config._read("jax_compilation_cache_max_size")
  return DEFAULT_MAX_BYTES if limit is None or limit < 0 else int(limit)


def _evict(folder: pathlib.Path) -> None:
  """Deletes the least recently used entries until the directory fits its bound."""
  entries = []
  for path in folder.glob("*" + _SUFFIX):
    try:
      st = path.stat()
    except OSError:
      continue
    entries.append((st.st_mtime, st.st_size, path))
  total, limit = sum(e[1] for e in entries), _max_bytes()
  for _, size, path in sorted(entries):
    if total <= limit:
      break
    try:
      path.unlink()
      total -= size
    except OSError:
      pass
