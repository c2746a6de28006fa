"""Sequence taggers on a CoNLL-2000-like synthetic chunking problem, beside
CRFsuite's averaged perceptron (skipped when sklearn-crfsuite is missing)."""

from functools import cache

import numpy as np

from sklearn_pa import StructuredPassiveAggressive, StructuredPerceptron

EPOCHS = 3


@cache
def tagging_problem():
    """2000 sentences of 5-30 tokens, 12 sparse string features per token
    drawn from a vocabulary tied to a hidden first-order label chain."""
    rng = np.random.default_rng(0)
    n_labels, vocab = 12, 5000
    trans = rng.dirichlet(np.full(n_labels, 0.3), size=n_labels)
    emit = rng.integers(0, vocab, size=(n_labels, 40))
    X, y = [], []
    for _ in range(2000):
        T = int(rng.integers(5, 31))
        z = [int(rng.integers(n_labels))]
        for _ in range(T - 1):
            z.append(int(rng.choice(n_labels, p=trans[z[-1]])))
        sent = []
        for lab in z:
            feats = {"bias": 1.0}
            for j in range(12):
                word = (
                    emit[lab, rng.integers(40)]
                    if rng.random() < 0.6
                    else (rng.integers(vocab))
                )
                feats[f"f{j}"] = f"v{word}"
            sent.append(feats)
        X.append(sent)
        y.append([f"L{lab}" for lab in z])
    return X[:1500], X[1500:], y[:1500], y[1500:]


def _make(name):
    if name == "crfsuite_ap":
        import sklearn_crfsuite

        return sklearn_crfsuite.CRF(algorithm="ap", max_iterations=EPOCHS)
    if name == "perceptron":
        return StructuredPerceptron(max_iter=EPOCHS, random_state=0)
    if name == "perceptron_beam2_maxviol":
        return StructuredPerceptron(
            update="max_violation", beam_width=2, max_iter=EPOCHS, random_state=0
        )
    return StructuredPassiveAggressive(k_best=3, max_iter=EPOCHS, random_state=0)


class SequenceTaggerSuite:
    params = [["crfsuite_ap", "perceptron", "perceptron_beam2_maxviol", "mira_k3"]]
    param_names = ["estimator"]
    timeout = 300

    def setup(self, name):
        try:
            self.estimator = _make(name)
        except ImportError as exc:
            raise NotImplementedError("sklearn-crfsuite is not installed") from exc
        self.X_train, self.X_test, self.y_train, self.y_test = tagging_problem()
        self.fitted = _make(name).fit(self.X_train, self.y_train)

    def time_fit(self, name):
        self.estimator.fit(self.X_train, self.y_train)

    def peakmem_fit(self, name):
        self.estimator.fit(self.X_train, self.y_train)

    def time_predict(self, name):
        self.fitted.predict(self.X_test)

    def track_token_accuracy(self, name):
        pred = np.concatenate([np.asarray(p) for p in self.fitted.predict(self.X_test)])
        true = np.concatenate([np.asarray(t) for t in self.y_test])
        return float(np.mean(pred == true))
