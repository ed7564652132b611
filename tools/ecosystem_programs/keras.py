"""keras: Keras 3 on its JAX backend -- a Sequential MLP trained with fit, a CNN, and a
functional model (Embedding, LSTM, MultiHeadAttention, normalization layers), as Keras's
getting-started guides build them. Every layer infers its output shape with jax.eval_shape
over a symbolic batch dimension (jax.export.symbolic_shape)."""
import os

os.environ["KERAS_BACKEND"] = "jax"

import numpy as np  # noqa: E402
import keras  # noqa: E402
from keras import layers  # noqa: E402


def run():
  keras.utils.set_random_seed(0)
  rng = np.random.RandomState(0)
  x = rng.randn(128, 20).astype("float32")
  y = (x[:, :3].sum(1) > 0).astype("int32")
  mlp = keras.Sequential([keras.Input((20,)), layers.Dense(32, activation="relu"),
                          layers.Dropout(0.1), layers.Dense(2, activation="softmax")])
  mlp.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
  history = mlp.fit(x, y, batch_size=32, epochs=2, verbose=0).history
  cnn = keras.Sequential([keras.Input((8, 8, 1)), layers.Conv2D(4, 3, activation="relu"),
                          layers.MaxPooling2D(), layers.Flatten(), layers.Dense(3)])
  tokens = rng.randint(0, 50, size=(32, 12)).astype("int32")
  inp = keras.Input((12,), dtype="int32")
  h = layers.LSTM(8, return_sequences=True)(layers.Embedding(50, 8)(inp))
  h = layers.LayerNormalization()(layers.MultiHeadAttention(num_heads=2, key_dim=4)(h, h))
  out = layers.Dense(2)(layers.BatchNormalization()(layers.GlobalAveragePooling1D()(h)))
  functional = keras.Model(inp, out)
  functional.compile(optimizer=keras.optimizers.SGD(0.05), loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
  f_loss = functional.fit(tokens, tokens.sum(1) % 2, batch_size=16, epochs=1, verbose=0).history["loss"]
  return {"mlp_loss": history["loss"], "mlp_accuracy": history["accuracy"],
          "mlp_predict": mlp.predict(x[:3], verbose=0),
          "cnn_output_shape": str(cnn.output_shape),
          "cnn_out": cnn(np.ones((2, 8, 8, 1), "float32")),
          "functional_output_shape": str(functional.output_shape),
          "functional_params": functional.count_params(), "functional_loss": f_loss}
