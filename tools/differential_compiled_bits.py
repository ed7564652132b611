"""Compares, bit for bit, the float32 results of realistic jitted programs (MLP and Adam
steps, attention, layer norm, convolutions, scans, mixed precision ...) under xjax and the
reference JAX: XLA rounds the same jaxpr differently when the StableHLO around it differs
(a reshape before a broadcast, one broadcast shared by several uses), so this catches
lowering differences that value comparisons within ulps do not.

    /tmp/ref/bin/python tools/differential_compiled_bits.py jax /tmp/r.json
    .venv/bin/python tools/differential_compiled_bits.py xjax /tmp/x.json
    python tools/differential_compiled_bits.py compare /tmp/r.json /tmp/x.json

Not run by CI: it needs the reference JAX.
"""
import sys, json, numpy as np
if sys.argv[1] == "compare":
  ref, got = (json.load(open(p)) for p in sys.argv[2:4])
  for name in ref:
    if ref[name] != got.get(name):
      if isinstance(ref[name], str) or isinstance(got.get(name), str):
        print("DIFF", name, str(ref[name])[:80], str(got.get(name))[:80])
        continue
      n = sum(sum(u != v for u, v in zip(a, b)) for a, b in zip(ref[name], got[name]))
      print("DIFF", name, n, "of", sum(len(a) for a in ref[name]), "values")
  print(len(ref), "programs compared")
  sys.exit(0)
if sys.argv[1] == "xjax":
  import xjax as jax, xjax.numpy as jnp
  from xjax import lax
else:
  import jax, jax.numpy as jnp
  from jax import lax
rng = np.random.default_rng(0)
def r(*s, dt=np.float32): return rng.standard_normal(s).astype(dt)
W1, b1, W2, b2 = r(16, 32), r(32), r(32, 4), r(4)
X, Y = r(64, 16), rng.integers(0, 4, 64)
def mlp(p, x):
  W1, b1, W2, b2 = p
  h = jax.nn.relu(x @ W1 + b1)
  return h @ W2 + b2
def loss(p, x, y):
  logits = mlp(p, x)
  return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, 4), axis=-1))
P = (W1, b1, W2, b2)
progs = {}
progs['mlp_fwd'] = lambda: jax.jit(mlp)(P, X)
progs['mlp_loss'] = lambda: jax.jit(loss)(P, X, Y)
progs['mlp_grad'] = lambda: jax.jit(jax.grad(loss))(P, X, Y)
def sgd(p, x, y):
  g = jax.grad(loss)(p, x, y)
  return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)
def train(p):
  for _ in range(5):
    p = jax.jit(sgd)(p, X, Y)
  return p
progs['sgd5'] = lambda: train(P)
def adam_step(p, m, v, t, x, y):
  g = jax.grad(loss)(p, x, y)
  m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
  v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
  mh = jax.tree_util.tree_map(lambda m: m / (1 - 0.9 ** t), m)
  vh = jax.tree_util.tree_map(lambda v: v / (1 - 0.999 ** t), v)
  p = jax.tree_util.tree_map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), p, mh, vh)
  return p, m, v
def adam(p):
  m = jax.tree_util.tree_map(jnp.zeros_like, p); v = m
  for t in range(1, 4):
    p, m, v = jax.jit(adam_step)(p, m, v, t, X, Y)
  return p
progs['adam3'] = lambda: adam(P)
Z = r(8, 10, 32)
def layernorm(x):
  mu = x.mean(-1, keepdims=True); var = x.var(-1, keepdims=True)
  return (x - mu) / jnp.sqrt(var + 1e-5)
progs['layernorm'] = lambda: jax.jit(layernorm)(Z)
progs['layernorm_grad'] = lambda: jax.jit(jax.grad(lambda z: jnp.sum(layernorm(z) ** 2)))(Z)
Q, K, V = r(2, 4, 10, 8), r(2, 4, 12, 8), r(2, 4, 12, 8)
def attn(q, k, v):
  s = jnp.einsum('bhqd,bhkd->bhqk', q, k) / jnp.sqrt(8.)
  return jnp.einsum('bhqk,bhkd->bhqd', jax.nn.softmax(s, axis=-1), v)
progs['attention'] = lambda: jax.jit(attn)(Q, K, V)
progs['attention_grad'] = lambda: jax.jit(jax.grad(lambda q: jnp.sum(attn(q, K, V) ** 2)))(Q)
progs['dpa'] = lambda: jax.jit(jax.nn.dot_product_attention)(Q.transpose(0, 2, 1, 3), K.transpose(0, 2, 1, 3), V.transpose(0, 2, 1, 3))
IMG, KER = r(2, 3, 16, 16), r(8, 3, 3, 3)
def conv(img, ker):
  y = lax.conv_general_dilated(img, ker, (1, 1), 'SAME')
  return jnp.mean(jax.nn.gelu(y))
progs['conv'] = lambda: jax.jit(conv)(IMG, KER)
progs['conv_grad'] = lambda: jax.jit(jax.grad(conv, argnums=(0, 1)))(IMG, KER)
progs['logsumexp'] = lambda: jax.jit(lambda z: jax.nn.logsumexp(z, axis=-1))(Z)
progs['softmax_grad'] = lambda: jax.jit(jax.grad(lambda z: jnp.sum(jax.nn.softmax(z) * Z)))(Z)
progs['gelu_grad'] = lambda: jax.jit(jax.vmap(jax.grad(lambda a: jax.nn.gelu(a))))(Z.ravel())
progs['silu_tanh'] = lambda: jax.jit(lambda z: jnp.tanh(jax.nn.silu(z)) * jax.nn.sigmoid(z))(Z)
progs['norm'] = lambda: jax.jit(lambda z: jnp.linalg.norm(z, axis=-1))(Z)
progs['scan_rnn'] = lambda: jax.jit(lambda w, xs: lax.scan(lambda h, x: (jnp.tanh(h @ w + x), h.sum()), jnp.zeros(32), xs))(r(32, 32) * 0.1, r(20, 32))
progs['cumsum_var'] = lambda: jax.jit(lambda z: jnp.cumsum(z, axis=1).var(axis=0))(Z)
progs['std_ddof'] = lambda: jax.jit(lambda z: jnp.std(z, axis=(0, 1), ddof=1))(Z)
progs['mse_grad'] = lambda: jax.jit(jax.grad(lambda w: jnp.mean((X @ w - 1.) ** 2)))(r(16))
progs['logistic_reg'] = lambda: jax.jit(jax.grad(lambda w: jnp.mean(jnp.logaddexp(0., -(X @ w)))))(r(16))
progs['hessian'] = lambda: jax.jit(jax.hessian(lambda w: jnp.sum(jnp.logaddexp(0., X[:, :4] @ w))))(r(4))
progs['cross_entropy'] = lambda: jax.jit(lambda l: -jnp.sum(jax.nn.log_softmax(l) * jax.nn.one_hot(Y, 4)) / 64)(r(64, 4))
progs['bf16_mlp'] = lambda: jax.jit(mlp)(jax.tree_util.tree_map(lambda a: a.astype(jnp.bfloat16), P), X.astype(jnp.bfloat16)).astype(jnp.float32)
progs['f16_sum'] = lambda: jax.jit(lambda z: jnp.sum(z.astype(jnp.float16), axis=-1).astype(jnp.float32))(Z)
progs['matmul_chain'] = lambda: jax.jit(lambda a: a @ a @ a @ a)(r(16, 16))
progs['poly'] = lambda: jax.jit(lambda z: jnp.polyval(jnp.array([1., -2., 0.5, 3.]), z))(Z)
progs['erf_exp'] = lambda: jax.jit(lambda z: jax.scipy.special.erf(z) * jnp.exp(-z ** 2))(Z)
progs['where_mix'] = lambda: jax.jit(lambda z: jnp.where(z > 0, jnp.log1p(z), jnp.expm1(z)))(Z)
progs['vmap_mlp'] = lambda: jax.jit(jax.vmap(lambda x: mlp(P, x)))(X)
progs['per_ex_grad'] = lambda: jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))(P, X[:8, None], Y[:8, None])
progs['normalize'] = lambda: jax.jit(lambda z: z / jnp.linalg.norm(z, axis=-1, keepdims=True))(Z)
progs['cosine'] = lambda: jax.jit(lambda a, b: jnp.sum(a * b, -1) / (jnp.linalg.norm(a, axis=-1) * jnp.linalg.norm(b, axis=-1)))(X, X[::-1])
progs['mean_center'] = lambda: jax.jit(lambda z: (z - z.mean(0)) / z.std(0))(X)
progs['batchnorm'] = lambda: jax.jit(lambda z, g, b: g * (z - z.mean(0)) * lax.rsqrt(z.var(0) + 1e-5) + b)(X, r(16), r(16))
progs['rmsnorm'] = lambda: jax.jit(lambda z: z * lax.rsqrt(jnp.mean(z * z, -1, keepdims=True) + 1e-6))(Z)
progs['triu_mask'] = lambda: jax.jit(lambda s: jax.nn.softmax(jnp.where(jnp.tril(jnp.ones((10, 10), bool)), s, -1e9)))(r(10, 10))
progs['cumprod'] = lambda: jax.jit(lambda z: jnp.cumprod(1 + 0.01 * z, axis=-1))(Z)
progs['sort_median'] = lambda: jax.jit(lambda z: jnp.median(z, axis=-1))(Z)
out = {}
for name, f in progs.items():
  try:
    res = f()
    leaves = jax.tree_util.tree_leaves(res)
    out[name] = [np.asarray(l).astype(np.float32).ravel().view(np.uint32).tolist() for l in leaves]
  except Exception as e:
    out[name] = 'ERR ' + type(e).__name__ + str(e)[:100]
json.dump(out, open(sys.argv[2], 'w'))
