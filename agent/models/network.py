"""A small feed-forward network for next-action prediction, and the L-BFGS minimiser the
learned predictor's fits share.

Seed 004 (Davidson et al. 2000, "Neural networks") predicts an opponent's action with a
standard feed-forward network over properties of the public game context, with one
output per action (fold, call, raise) normalised into a distribution. Ours keeps the
logistic model of agent.models.learned as a direct (skip) connection and adds one hidden
layer of tanh units, so it can only do better than the linear model on the data it is
fitted to, and starts from it:

    logits = W x + V tanh(U x + b)

with x the learned predictor's feature vector (public context plus the player's
statistics as the models stood before the hand). It is fitted by full-batch L-BFGS
(Nocedal & Wright, algorithm 7.4) on the L2-penalised mean log-likelihood; the hidden
weights start from a seeded numpy Generator (the only random choice), and the fit keeps
the weights of the iteration that scored best on a held-back validation part (early
stopping).
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

__all__ = ["MLPShape", "fit_network", "lbfgs", "mlp_init", "mlp_logits", "mlp_objective", "mlp_unpack",
           "training_data"]

Objective = Callable[[np.ndarray], tuple[float, np.ndarray]]


def training_data(X: np.ndarray, y: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
    """``X`` as a contiguous float matrix and ``y`` as classes 0 (fold), 1 (call), 2 (raise),
    one per row, or ValueError naming ``what`` was given them."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    if X.ndim != 2 or len(y) != X.shape[0] or X.shape[0] == 0:
        raise ValueError(f"{what} needs a non-empty matrix and one class per row, got {X.shape} and {y.shape}")
    if np.any((y < 0) | (y > 2)):
        raise ValueError("classes must be 0 (fold), 1 (call) or 2 (raise)")
    return X, y


def lbfgs(objective: Objective, w0: np.ndarray, *, max_iter: int = 300, tol: float = 1e-7, memory: int = 10,
          progress: Callable[[int, float], None] | None = None,
          stop: Callable[[int, np.ndarray], bool] | None = None) -> np.ndarray:
    """Minimise ``objective`` (value and gradient of a flat vector) from ``w0`` by L-BFGS
    with a backtracking (Armijo) line search. Deterministic. ``progress(iteration,
    value)`` is told of every iteration; ``stop(iteration, w)`` may end the run early
    (returning True). Stops when the gradient vanishes or an iteration gains less than
    ``tol`` of the value (after ten iterations)."""
    w = np.array(w0, dtype=np.float64)
    loss, g = objective(w)
    s_list: list[np.ndarray] = []
    y_list: list[np.ndarray] = []
    for it in range(max_iter):
        # Two-loop recursion: the L-BFGS direction.
        q = g.copy()
        alphas = []
        for s, yy in zip(reversed(s_list), reversed(y_list)):
            rho = 1.0 / float(yy @ s)
            a = rho * float(s @ q)
            alphas.append((rho, a))
            q -= a * yy
        if s_list:
            q *= float(s_list[-1] @ y_list[-1]) / float(y_list[-1] @ y_list[-1])
        for (s, yy), (rho, a) in zip(zip(s_list, y_list), reversed(alphas)):
            b = rho * float(yy @ q)
            q += (a - b) * s
        d = -q
        slope = float(g @ d)
        if slope >= 0:  # not a descent direction: start again from the gradient
            s_list.clear()
            y_list.clear()
            d = -g
            slope = -float(g @ g)
        step = 1.0 if s_list else min(1.0, 1.0 / max(1e-12, float(np.sqrt(g @ g))))
        while True:
            w_new = w + step * d
            loss_new, g_new = objective(w_new)
            if loss_new <= loss + 1e-4 * step * slope or step < 1e-10:
                break
            step *= 0.5
        s_vec, y_vec = w_new - w, g_new - g
        if float(s_vec @ y_vec) > 1e-12:
            s_list.append(s_vec)
            y_list.append(y_vec)
            if len(s_list) > memory:
                s_list.pop(0)
                y_list.pop(0)
        improvement = loss - loss_new
        w, loss, g = w_new, loss_new, g_new
        if progress is not None:
            progress(it, loss)
        if stop is not None and stop(it, w):
            break
        if float(np.max(np.abs(g))) < 1e-6 or (it >= 10 and improvement < tol * max(1.0, abs(loss))):
            break
    return w


class MLPShape:
    """The sizes of a network: ``inputs`` features, ``hidden`` tanh units, 3 outputs;
    the flat parameter vector is W (3 × inputs), U (hidden × inputs), b (hidden),
    V (3 × hidden)."""

    __slots__ = ("inputs", "hidden")

    def __init__(self, inputs: int, hidden: int) -> None:
        if inputs < 1 or hidden < 0:
            raise ValueError(f"a network needs inputs >= 1 and hidden >= 0, got {inputs}, {hidden}")
        self.inputs = int(inputs)
        self.hidden = int(hidden)

    @property
    def size(self) -> int:
        d, h = self.inputs, self.hidden
        return 3 * d + h * d + h + 3 * h


def mlp_unpack(w: np.ndarray, shape: MLPShape) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(W, U, b, V) views of a flat parameter vector."""
    d, h = shape.inputs, shape.hidden
    if w.shape != (shape.size,):
        raise ValueError(f"a network of {d} inputs and {h} hidden units has {shape.size} parameters, got {w.shape}")
    i = 3 * d
    W = w[:i].reshape(3, d)
    U = w[i:i + h * d].reshape(h, d)
    i += h * d
    b = w[i:i + h]
    V = w[i + h:].reshape(3, h)
    return W, U, b, V


def mlp_init(shape: MLPShape, rng: np.random.Generator, linear: np.ndarray | None = None,
             scale: float = 0.5) -> np.ndarray:
    """A starting parameter vector: the direct weights W from ``linear`` (a fitted
    logistic model, 3 × inputs) or zeros; U drawn from ``rng`` with rows of norm about
    ``scale`` in the inputs' units (N(0, scale² / inputs)); b zero; V drawn small
    (N(0, 0.01)), so the network starts as the linear model plus a small perturbation."""
    w = np.zeros(shape.size)
    W, U, b, V = mlp_unpack(w, shape)
    if linear is not None:
        W[:] = linear
    U[:] = rng.normal(0.0, scale / math.sqrt(shape.inputs), size=U.shape)
    V[:] = rng.normal(0.0, 0.1, size=V.shape)
    return w


def mlp_logits(w: np.ndarray, shape: MLPShape, X: np.ndarray) -> np.ndarray:
    """The (fold, call, raise) logits of every row of ``X``."""
    W, U, b, V = mlp_unpack(w, shape)
    Z = X @ W.T
    if shape.hidden:
        Z += np.tanh(X @ U.T + b) @ V.T
    return Z


def mlp_objective(w: np.ndarray, shape: MLPShape, X: np.ndarray, Y: np.ndarray, l2: float,
                  l2_hidden: float | None = None) -> tuple[float, np.ndarray]:
    """Penalised mean negative log-likelihood of the one-hot classes ``Y`` and its
    gradient with respect to the flat parameters. ``l2`` penalises W, ``l2_hidden``
    (default ``l2``) U and V; the hidden biases b are not penalised."""
    lh = l2 if l2_hidden is None else l2_hidden
    W, U, b, V = mlp_unpack(w, shape)
    n = X.shape[0]
    Z = X @ W.T
    if shape.hidden:
        A = np.tanh(X @ U.T + b)
        Z += A @ V.T
    Z -= Z.max(axis=1, keepdims=True)
    logP = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    loss = -float(np.sum(logP * Y)) / n
    loss += 0.5 * l2 * float(np.sum(W * W)) + 0.5 * lh * (float(np.sum(U * U)) + float(np.sum(V * V)))
    D = (np.exp(logP) - Y) / n  # d loss / d logits
    g = np.empty_like(w)
    gW, gU, gb, gV = mlp_unpack(g, shape)
    gW[:] = D.T @ X + l2 * W
    if shape.hidden:
        gV[:] = D.T @ A + lh * V
        DH = (D @ V) * (1.0 - A * A)  # back through tanh
        gU[:] = DH.T @ X + lh * U
        gb[:] = DH.sum(axis=0)
    return loss, g


def _mean_loglik(Z: np.ndarray, y: np.ndarray) -> float:
    Z = Z - Z.max(axis=1, keepdims=True)
    logP = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    return float(np.mean(logP[np.arange(len(y)), y]))


def fit_network(X: np.ndarray, y: np.ndarray, hidden: int, l2: float, rng: np.random.Generator, *,
                l2_hidden: float | None = None, linear: np.ndarray | None = None,
                stop_X: np.ndarray | None = None, stop_y: np.ndarray | None = None, max_iter: int = 300,
                check_every: int = 10, patience: int = 3,
                progress: Callable[[int, float], None] | None = None) -> tuple[np.ndarray, dict[str, float]]:
    """Fit a network of ``hidden`` tanh units (plus the direct weights) to the classes
    ``y`` (0 fold, 1 call, 2 raise) of the rows of ``X`` by full-batch L-BFGS from
    ``mlp_init(rng, linear)``. With a stopping set (``stop_X``, ``stop_y``: decisions the
    fit does not see), its mean log-likelihood is checked every ``check_every``
    iterations and the weights of the best check are kept; the run ends after
    ``patience`` checks without improvement (early stopping). Returns the flat
    parameters and what happened (iterations, best iteration, the stopping set's best
    log-likelihood)."""
    X, y = training_data(X, y, "fit_network")
    if not (math.isfinite(l2) and l2 >= 0) or (l2_hidden is not None and not (math.isfinite(l2_hidden)
                                                                                and l2_hidden >= 0)):
        raise ValueError(f"penalties must be non-negative numbers, got {l2!r} and {l2_hidden!r}")
    if (stop_X is None) != (stop_y is None):
        raise ValueError("a stopping set needs both its rows and its classes")
    shape = MLPShape(X.shape[1], hidden)
    Y = np.zeros((len(y), 3))
    Y[np.arange(len(y)), y] = 1.0
    w0 = mlp_init(shape, rng, linear)
    info = {"iterations": 0, "best_iteration": -1, "stop_log_likelihood": float("nan")}
    best = {"w": w0, "ll": -math.inf, "bad": 0}
    if stop_X is not None:
        best["ll"] = info["stop_log_likelihood"] = _mean_loglik(mlp_logits(w0, shape, stop_X), stop_y)

    def stop(it: int, w: np.ndarray) -> bool:
        info["iterations"] = it + 1
        if stop_X is None or (it + 1) % check_every:
            return False
        ll = _mean_loglik(mlp_logits(w, shape, stop_X), stop_y)
        if ll > best["ll"]:
            best.update(w=w.copy(), ll=ll, bad=0)
            info["best_iteration"] = it + 1
            info["stop_log_likelihood"] = ll
            return False
        best["bad"] += 1
        return best["bad"] >= patience

    w = lbfgs(lambda v: mlp_objective(v, shape, X, Y, l2, l2_hidden), w0, max_iter=max_iter, tol=1e-10,
              progress=progress, stop=stop)
    if stop_X is None:
        info["best_iteration"] = info["iterations"]
        return w, info
    ll = _mean_loglik(mlp_logits(w, shape, stop_X), stop_y)
    if ll > best["ll"]:
        info["best_iteration"], info["stop_log_likelihood"] = info["iterations"], ll
        return w, info
    return best["w"], info
