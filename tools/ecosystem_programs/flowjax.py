"""flowjax: a masked autoregressive flow fitted to samples with fit_to_data, then its
log-density and samples, as flowjax's getting-started page teaches."""
import jax
import jax.numpy as jnp
import jax.random as jr
from flowjax.distributions import Normal
from flowjax.flows import masked_autoregressive_flow
from flowjax.train import fit_to_data


def run():
  data_key, flow_key, train_key, sample_key = jr.split(jr.key(0), 4)
  x = jr.uniform(data_key, (200, 2))
  flow = masked_autoregressive_flow(flow_key, base_dist=Normal(jnp.zeros(2)), nn_width=8)
  flow, losses = fit_to_data(train_key, flow, x, learning_rate=5e-3, max_epochs=5,
                             show_progress=False)
  return {"train_losses": losses["train"], "val_losses": losses["val"],
          "log_prob": flow.log_prob(jnp.array([[0.5, 0.5], [0.1, 0.9]])),
          "sample": flow.sample(sample_key, (2,))}
