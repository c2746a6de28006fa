"""progressive_val_predict: the online predictions of a stream."""

from ._stream import _METHODS, _progressive


def progressive_val_predict(
    estimator,
    X,
    y=None,
    *,
    classes=None,
    sample_weight=None,
    batch_size=None,
    method="predict",
    return_estimator=False,
    delay=None,
):
    """Predict each sample of a stream, then learn from it.

    The samples are visited in their given order (no shuffling): sample
    ``i`` is predicted by ``estimator`` after ``partial_fit`` on samples
    ``0 .. i-1`` only.  ``estimator`` is cloned first and left untouched.

    The stream is either in-memory arrays ``X, y`` or, with ``y=None``, an
    iterable ``X`` of ``(X_batch, y_batch)`` (or ``(X_batch, y_batch,
    sample_weight_batch)``) batches, such as a generator reading from disk:
    it is read once, one batch at a time.  ``estimator`` may be a
    :class:`~sklearn.pipeline.Pipeline` whose last step has
    ``partial_fit``: its transformers are used as they are (stateless, such
    as :class:`~sklearn.feature_extraction.text.HashingVectorizer`, or fitted
    beforehand on data that precedes the stream) and only the last step
    learns.

    The estimators of this package that learn from ``(X, y)`` take the fast
    path: the prequential protocol
    ``__sklearn_pa_prequential__(X, y[, classes], sample_weight)`` makes one
    compiled pass over a batch that records each sample's score just before
    learning from it (the averaged model's score with ``average``; the Bayes
    point of the online Bayes point machine; kernel PA's kernel expansion),
    so the result is exactly the per-sample predict-then-learn loop whatever
    the batches.  That pass learns the first sample alone, then the rest of
    the first batch: a constant the learner sets from the data of its first
    call (``intercept_scaling="auto"``, kernel PA's ``gamma="scale"``) comes
    from the first sample, the only one seen at the first update, so no
    online score depends on a later sample nor on the batch size.
    ``method="predict_proba"`` takes it too for
    :class:`~sklearn_pa.ConfidenceWeightedClassifier`,
    :class:`~sklearn_pa.AROWClassifier` and :class:`~sklearn_pa.SCWClassifier`:
    the pass also records each sample's variance ``x^T Sigma x`` before its
    update, and the probabilities are calibrated on the margins the samples
    before it got (those ``partial_fit`` recorded before the batch, then the
    batch's own pre-update margins), as the per-sample loop calibrates
    them, except that the calibration is refitted before each sample only
    while fewer than 64 margins are recorded, then every 128 samples (and at
    the start of each batch) instead of after every sample: the decision
    values and predictions are exact, the
    probabilities close (exact in batches of one sample), and the model
    afterwards is that of ``partial_fit`` on the first sample, then on the
    batches.  Any other
    estimator with ``partial_fit`` falls back to a loop of ``predict`` then
    ``partial_fit`` per batch:
    within a batch the model does not learn between predictions, so only
    batches of one sample (the default on arrays) are exact, and the first
    batch, which an unfitted estimator cannot predict, is learned without
    being predicted (``predicted`` is False there).  That loop warns on
    arrays of more than 1000 samples without ``batch_size``.  The package's
    estimators predict the first sample with their initial model (zero
    weights; uniform weights for EG+-), as the online learning literature
    counts it.

    Parameters
    ----------
    estimator : estimator object implementing ``partial_fit``, or Pipeline
        The online learner, or a pipeline ending with one.  The learner is
        cloned; a pipeline's transformers are used as they are.
    X : {array-like, sparse matrix} of shape (n_samples, n_features) or \
            iterable of (X_batch, y_batch) batches
        The stream, in time order: arrays (with ``y``), or, with ``y=None``,
        an iterable of batches, each ``(X_batch, y_batch)`` or ``(X_batch,
        y_batch, sample_weight_batch)``.
    y : array-like of shape (n_samples,), default=None
        The targets of arrays ``X``; None when ``X`` is a stream of
        batches.
    classes : array-like of shape (n_classes,), default=None
        For a classifier, every label of the stream; ``None`` uses the
        labels of ``y`` (required for a stream of batches), except for a
        classifier with ``new_classes="add"``, which then adds each label
        when it first meets it: its first sample is not predicted (no class
        is known), and its decision values are in the columns of its final
        ``classes_``, ``-inf`` for a class not known yet when the sample was
        predicted (the first sample of a class included).
    sample_weight : array-like of shape (n_samples,), default=None
        Passed to ``partial_fit`` (arrays only: a stream's batches carry
        their own).
    batch_size : int, default=None
        Number of samples per call on arrays.  ``None`` means the whole
        stream in one kernel pass on the fast path, and 1 on the fallback.
        Not used with a stream, which is learned in the batches it yields.
    method : {"predict", "decision_function", "predict_proba"}, \
            default="predict"
        What to record: the predictions, the raw decision values (fast
        path: the kernel's scores; fallback: ``decision_function``, or
        ``predict`` for a regressor), or the class probabilities (compiled
        for the confidence-weighted family, see above).
    return_estimator : bool, default=False
        Whether to return the estimator fitted on the whole stream as well.
    delay : int or array-like of shape (n_samples,), default=None
        When the labels arrive (arrays only): a number of rows, row ``i``'s
        label arriving after row ``i + delay`` is predicted, or the arrival
        time of each row's label on the scale of the rows (row ``i``
        arrives at time ``i``; an arrival time must be at least the row's
        index; ``np.inf``: never).  Row ``j`` is predicted when it arrives
        by the model that has learned every row whose label arrived before
        time ``j`` (``arrival[i] < j``), in the order of the arrivals, and
        is learned when its own label arrives; labels arriving after the
        last row are learned at the end.  The rows predicted between two
        arrivals are predicted together and the rows whose labels arrive
        together are learned together (the package's learners by their
        compiled pass, without shuffling): a constant delay calls the
        learner once per row.  The rows that arrive before the first label
        are predicted by the learner's initial model (not predicted for
        another estimator, or a classifier with ``new_classes="add"``,
        which knows no class yet; kernel PA's is read from fresh copies'
        first scores), and the first label is learned alone, as the first
        sample above.  None or 0: no delay.

    Returns
    -------
    predictions : ndarray of shape (n_samples,) or (n_samples, n_classes)
        The online prediction of each sample.  Samples that could not be
        predicted (the first batch on the fallback; rows the kernel skipped
        because their scores were not finite) are NaN for regressors and
        decision values, and the masked entries of ``predicted`` below for
        class predictions.
    predicted : ndarray of bool of shape (n_samples,)
        Which samples were predicted.
    estimator : estimator object
        The fitted clone (a pipeline: the same transformers and the fitted
        last step), only if ``return_estimator``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pa import PassiveAggressiveRegressor
    >>> from sklearn_pa.model_selection import progressive_val_predict
    >>> X = np.arange(10.0).reshape(-1, 1)
    >>> reg = PassiveAggressiveRegressor(C=np.inf, epsilon=0.0, fit_intercept=False)
    >>> y_pred, predicted = progressive_val_predict(reg, X, 2 * X[:, 0])
    >>> y_pred[:4], bool(predicted.all())  # learned exactly from x = 1 on
    (array([0., 0., 4., 6.]), True)
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}.")
    result = _progressive(
        estimator,
        X,
        y,
        classes=classes,
        sample_weight=sample_weight,
        batch_size=batch_size,
        responses=(method,),
        delay=delay,
    )
    if return_estimator:
        return result[method], result.predicted, result.estimator
    return result[method], result.predicted
