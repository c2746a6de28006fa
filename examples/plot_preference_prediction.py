"""
=====================================================
Online preference prediction: GD, EG±, DPAU and DPMU
=====================================================

A reader rates each news post from -2 (no interest) to 2 (high interest);
a learner sees the posts one at a time, in the order they were written,
predicts the rating from the post's keywords, then is told the rating and
learns from it.  Its quality is its cumulative square loss over the stream
(progressive validation), the quantity the loss bounds of Kivinen and
Warmuth are about.

This reproduces, on public data, the experiment of Nakamura, Mamitsuka, Toba
and Abe ("Learning personal preference functions using Boolean-variable
real-valued multivariate polynomials"): Boolean keyword vectors, the additive
(GD) and multiplicative (EG±) updates of Kivinen and Warmuth, the
error-proportional updates DPAU and DPMU, learning rates tuned by a bisection
search on the cumulative loss, a batch least-squares comparison, and the same
learners on 2-Boolean polynomial features (keyword pairs).

The data are 20 Newsgroups posts read from ``$SKLEARN_PA_DATA/sklearn``, or
from scikit-learn's data home when they are already there (never
downloaded); without them the example says so and runs on synthetic posts
of the same structure.  The reader's interest is simulated from the
newsgroup (space and graphics interest them, sports and politics do not)
plus noise.
"""

# %%
# The stream
# ----------
# Posts in time order (their ``Date:`` header), with the headers removed
# (they name the newsgroup) but the subject kept.
import os
import re
import time
from email.utils import parsedate_to_datetime
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import fetch_20newsgroups
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import Ridge, SGDRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures
from sklearn.utils import Bunch

from sklearn_pa import (
    ErrorProportionalRegressor,
    ExponentiatedGradientRegressor,
    GradientDescentRegressor,
)
from sklearn_pa.model_selection import progressive_val_score, search_learning_rate

N_POSTS = 3000
N_PAIR_WORDS = 500  # vocabulary of the keyword-pair features
N_BISECTION = 16
N_LOOP = 500  # posts timed through the per-post SGD loop
# sphinx_gallery_start_ignore
if os.environ.get("SKLEARN_PA_EXAMPLES_QUICK") == "1":  # the test suite's short run
    N_POSTS = 500
    N_PAIR_WORDS = 100
    N_BISECTION = 8
    N_LOOP = 100
# sphinx_gallery_end_ignore


def synthetic_posts(n_posts, random_state=0):
    """Posts shaped like 20 Newsgroups' (a ``Date:`` header, a subject, a
    body), each group with its own vocabulary plus words shared by all."""
    rng = np.random.RandomState(random_state)
    groups = [
        "sci.space", "comp.graphics", "comp.windows.x", "sci.crypt",
        "sci.med", "rec.autos", "talk.politics.misc",
    ]  # fmt: skip

    def word():
        return "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), size=6))

    vocab = {g: [word() for _ in range(60)] for g in groups}
    shared = [word() for _ in range(200)]
    target = rng.randint(len(groups), size=n_posts)
    data = []
    for i, g in enumerate(target):
        words = [
            rng.choice(vocab[groups[g]]) if rng.rand() < 0.4 else rng.choice(shared)
            for _ in range(40)
        ]
        day = 1 + i * 28 // n_posts
        data.append(
            f"Date: {day:02d} Apr 1993 12:00:00 GMT\nSubject: {words[0]}\n\n"
            + " ".join(words[1:])
        )
    return Bunch(data=data, target=target, target_names=groups)


data_home = os.environ.get("SKLEARN_PA_DATA")
try:
    news = fetch_20newsgroups(
        data_home=Path(data_home) / "sklearn" if data_home else None,
        subset="all",
        shuffle=False,
        download_if_missing=False,
    )
except OSError:
    print(
        "20 Newsgroups is not available offline (set SKLEARN_PA_DATA, or run "
        "sklearn.datasets.fetch_20newsgroups once): using synthetic posts "
        "with the same structure instead."
    )
    news = synthetic_posts(N_POSTS)


def post_time(text):
    match = re.search(r"^Date:\s*(.+)$", text, re.MULTILINE)
    try:
        return parsedate_to_datetime(match.group(1).strip()).timestamp()
    except (AttributeError, TypeError, ValueError, IndexError, OverflowError):
        return np.nan


def body(text):
    head, _, rest = text.partition("\n\n")
    subject = re.search(r"^Subject:(.*)$", head, re.MULTILINE)
    return (subject.group(1) if subject else "") + "\n" + rest


times = np.array([post_time(text) for text in news.data])
times = np.where(np.isfinite(times), times, np.nanmedian(times))
order = np.argsort(times, kind="stable")[:N_POSTS]
texts = [body(news.data[i]) for i in order]
groups = np.asarray(news.target_names)[news.target[order]]

interest = {
    "sci.space": 2,
    "comp.graphics": 1,
    "comp.windows.x": 1,
    "comp.sys.mac.hardware": 0,
    "sci.crypt": 0,
    "comp.os.ms-windows.misc": -1,
    "comp.sys.ibm.pc.hardware": -1,
    "sci.electronics": -1,
    "sci.med": -1,
}
rng = np.random.RandomState(0)
mean_interest = np.array([interest.get(g, -2) for g in groups], dtype=float)
y = np.clip(np.round(mean_interest + 0.5 * rng.normal(size=len(groups))), -2, 2)
values, counts = np.unique(y, return_counts=True)
print(
    f"{len(y)} posts; ratings {dict(zip(values.astype(int).tolist(), counts.tolist()))}"
)

# %%
# Boolean keywords
# ----------------
# Each post is the set of its keywords: alphabetic tokens of three letters or
# more, English stop words removed, words of at least two posts.  Feature
# ``i`` is 1 when keyword ``i`` occurs, so DPMU's Boolean domain holds.


def keywords(**params):
    return CountVectorizer(
        binary=True,
        token_pattern=r"(?u)\b[a-zA-Z]{3,}\b",
        stop_words="english",
        min_df=2,
        dtype=np.float64,
        **params,
    )


X = keywords().fit_transform(texts).tocsr()
per_post = np.diff(X.indptr)
print(
    f"{X.shape[1]} keywords; per post mean {per_post.mean():.1f}, "
    f"max {per_post.max()}, min {per_post.min()}"
)

# %%
# Batch least squares
# -------------------
# The best fixed linear predictor in hindsight, ``u_opt``, (ridge-regularised:
# with more keywords than posts plain least squares interpolates) gives the
# comparator loss ``Loss(u_opt, S)``, and its L1 norm is the total weight U
# of EG± that Kivinen and Warmuth's tuning assumes known.  Like the seed, we
# also fit least squares on the first 90% of the stream and predict the rest.

ls = Ridge(alpha=1.0).fit(X, y)
hindsight = (y - ls.predict(X)) ** 2
U = float(np.abs(ls.coef_).sum() + abs(ls.intercept_))
print(f"Loss(u_opt, S) = {hindsight.sum():.1f}, ||u_opt||_1 = {U:.1f}")
split = int(0.9 * len(y))

# %%
# Learning rates by bisection
# ---------------------------
# As in the seed, the cumulative loss is assumed convex in the (log of the)
# learning rate; the sign of its slope, measured by a small relative step,
# halves the bracket each time.  That assumption fails for EG± beyond the
# rate at which it diverges (the loss explodes, and its slope there can
# point the wrong way), so a coarse scan of 9 rates first picks the bracket
# around the best of them.  Each evaluation is one progressive validation
# pass: predict every post, then learn it, in one compiled loop.
# :func:`~sklearn_pa.model_selection.search_learning_rate` does all of this:
# ``n_scan=9`` is the coarse scan, ``method="bisection"`` the seed's search.


def bisection(estimator, param_name, low, high, X):
    result = search_learning_rate(
        estimator,
        X,
        y,
        param_name=param_name,
        bounds=(low, high),
        method="bisection",
        n_iter=N_BISECTION,
        n_scan=9,
        delta=1e-3,
    )
    return result.best_value, result.cumulative_loss


def learners(U):
    return {
        "GD (eta/||x||^2)": (GradientDescentRegressor(shuffle=False), "eta", 1e-3, 1.0),
        "EG±": (
            ExponentiatedGradientRegressor(total_weight=U, shuffle=False),
            "eta",
            # the exponent of a step is 2 eta (y - yhat) U x_i: search eta
            # around 1 / U^2
            1e-4 / U**2,
            1e3 / U**2,
        ),
        "DPAU": (ErrorProportionalRegressor(shuffle=False), "C", 1e-3, 1.0),
        "DPMU": (
            ErrorProportionalRegressor(update="multiplicative", shuffle=False),
            "C",
            1e-3,
            1.0,
        ),
    }


def run(X, U, title):
    head = Ridge(alpha=1.0).fit(X[:split], y[:split])
    ls_tail_loss = float(np.sum((y[split:] - head.predict(X[split:])) ** 2))
    curves = {}
    print(f"\n{title}: {X.shape[1]} features")
    print(f"{'learner':18s} {'rate':>10s} {'cum. loss':>10s} {'last 10%':>9s}")
    for name, (estimator, param_name, low, high) in learners(U).items():
        start = time.perf_counter()
        rate, curve = bisection(estimator, param_name, low, high, X)
        elapsed = time.perf_counter() - start
        curves[name] = curve
        tail = curve[-1] - curve[split - 1]
        print(
            f"{name:18s} {rate:10.3g} {curve[-1]:10.1f} {tail:9.1f}"
            f"   ({2 * N_BISECTION + 10} passes, {elapsed:.1f} s)"
        )
    print(f"{'batch LS, first 90%':18s} {'':>10s} {'':>10s} {ls_tail_loss:9.1f}")
    return curves


curves_1 = run(X, U, "1-Boolean polynomials (keywords)")

# %%
# 2-Boolean polynomials
# ---------------------
# A 2-Boolean polynomial has a coefficient for every keyword and every pair of
# keywords: a linear model on the products ``x_i x_j``, which
# ``PolynomialFeatures(degree=2, interaction_only=True)`` makes (for Boolean
# ``x``, ``x_i^2 = x_i``, so the interactions are all there is).  The
# vocabulary is limited to the most frequent keywords to keep the number of
# pairs manageable; the products stay Boolean, so DPMU applies.

pairs = make_pipeline(
    keywords(max_features=N_PAIR_WORDS),
    PolynomialFeatures(degree=2, interaction_only=True, include_bias=False),
)
X2 = pairs.fit_transform(texts).tocsr()
X2.sum_duplicates()  # one stored entry per product, then Boolean values
X2.data[:] = 1.0
ls2 = Ridge(alpha=1.0).fit(X2, y)
U2 = float(np.abs(ls2.coef_).sum() + abs(ls2.intercept_))
curves_2 = run(X2, U2, "2-Boolean polynomials (keywords and pairs)")

# %%
# Cumulative loss
# ---------------

fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
for ax, curves, title in [
    (axes[0], curves_1, f"keywords ({X.shape[1]} features)"),
    (axes[1], curves_2, f"keywords and pairs ({X2.shape[1]} features)"),
]:
    for name, curve in curves.items():
        ax.plot(curve, label=name)
    ax.plot(np.cumsum(hindsight), "k:", label="batch LS in hindsight")
    ax.set_title(title)
    ax.set_xlabel("posts seen")
axes[0].set_ylabel("cumulative square loss")
axes[0].legend()
fig.tight_layout()

# %%
# Speed against scikit-learn's SGD
# --------------------------------
# GD with a constant rate is the rule of ``SGDRegressor(learning_rate=
# "constant", penalty=None)`` (with ``eta0 = 2 eta``): both fit the keyword
# matrix for the same number of epochs.  Progressive validation of the SGD
# model needs a predict / ``partial_fit`` call per post (no one-pass path).

epochs = 5
eta = 0.25 / per_post.max()  # a constant rate must be below 1 / max ||x||^2
gd = GradientDescentRegressor(
    eta=eta, eta_scaling="constant", max_iter=epochs, tol=None, random_state=0
)
sgd = SGDRegressor(
    penalty=None,
    learning_rate="constant",
    eta0=2 * eta,
    max_iter=epochs,
    tol=None,
    random_state=0,
)
for name, model in [("GradientDescentRegressor", gd), ("SGDRegressor", sgd)]:
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        model.fit(X, y)
        timings.append(time.perf_counter() - start)
    mse = np.mean((model.predict(X) - y) ** 2)
    print(f"{name:26s} fit {epochs} epochs: {min(timings):.3f} s, train MSE {mse:.3f}")
start = time.perf_counter()
progressive_val_score(gd.set_params(shuffle=False), X, y)
gd_pass = time.perf_counter() - start
n_loop = min(len(y), N_LOOP)
start = time.perf_counter()
progressive_val_score(sgd.set_params(shuffle=False), X[:n_loop], y[:n_loop])
sgd_pass = (time.perf_counter() - start) * len(y) / n_loop
print(
    f"progressive validation: one kernel pass {gd_pass:.3f} s; "
    f"per-post loop (SGD) about {sgd_pass:.1f} s"
)
