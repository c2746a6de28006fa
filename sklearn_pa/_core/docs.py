"""Docstring entries that the estimators share word for word.

Every family runs its epochs through one driver (:mod:`.driver`), so the
parameters it reads (``validation_fraction``, ``n_iter_no_change``,
``shuffle``, ``random_state``) and the history it leaves (``n_iter_``,
``loss_curve_``, ``validation_scores_``, ``t_``) mean the same in every
estimator; so do scikit-learn's ``n_features_in_`` and ``feature_names_in_``.
Each is written here once.  A class docstring names an entry by a line
``%(name)s`` (indented as the entry's first line), and :func:`fill_doc`
writes the entry there.  An estimator whose entry says something of its own
keeps its own text.
"""

import re
import textwrap

#: name -> the numpydoc entry, its description indented by four spaces
ENTRIES = {
    "max_iter": """\
max_iter : int, default=1000
    Maximum number of passes over the training data (epochs) in ``fit``.""",
    "early_stopping": """\
early_stopping : bool, default=False
    Hold out a stratified ``validation_fraction`` of the training data and
    stop when its accuracy stops improving.""",
    "intercept_scaling": """\
intercept_scaling : float or "auto", default="auto"
    Value of that constant feature; ``"auto"`` uses the root mean square
    of the non-zero entries of the first batch (``intercept_scaling_``;
    :func:`~sklearn_pa.model_selection.progressive_val_predict` learns the
    first sample alone, so that it comes from that sample).""",
    "verbose_epochs": """\
verbose : int, default=0
    If positive, print one line per epoch; from 2 on the line adds the
    online mistakes, updates and norms.""",
    "validation_fraction": """\
validation_fraction : float, default=0.1
    Proportion of the training data held out for early stopping.""",
    "n_iter_no_change": """\
n_iter_no_change : int, default=5
    Number of epochs with no improvement to wait before stopping.""",
    "shuffle": """\
shuffle : bool, default=True
    Whether to shuffle the training data before each epoch.""",
    "random_state": """\
random_state : int, RandomState instance or None, default=None
    Seeds the shuffling and the early-stopping split.""",
    "average": """\
average : bool, int or "epoch", default=False
    Publish averaged weights as ``coef_`` and ``intercept_`` (kept lazily:
    no per-sample copy of the weights).  ``"epoch"``: the average of the
    iterates of the last epoch of ``fit``, which restarts at every epoch (a
    ``partial_fit`` stream is averaged from its first sample, or from the
    last epoch of the ``fit`` it continues).  ``True``: the average over all
    steps.  An int ``a``: the average from step ``a`` on.  ``False``: the
    last iterate.""",
    "new_classes": """\
new_classes : {"error", "add"}, default="error"
    What ``partial_fit`` does with a label that is not in ``classes_``.
    ``"error"``: refuse the batch (every label must be given as ``classes``
    on the first call, as in scikit-learn).  ``"add"``: add the class where
    the stream first meets it, as a stream of support tickets or news
    topics meets new labels; ``classes`` is then optional (on any call it
    announces labels to add).  ``classes_`` stay sorted; the new class's
    weights (and covariance, averaging accumulators) start as those of a
    class never updated, at the row where it first appears (a batch is
    learned in segments cut there), and the rows before it are learned as
    if it did not exist.  A stream that has met one class predicts it; at
    the third class a binary model's column ``w`` becomes ``-w/2`` and
    ``+w/2`` (``-w``, ``+w`` for one-vs-rest), which predict what it
    predicted.  See the user guide, "Streams whose labels are not known in
    advance".  ``fit`` is not affected.""",
    "warm_start": """\
warm_start : bool, default=False
    Whether ``fit`` starts from the previous solution.""",
    "classes_": """\
classes_ : ndarray of shape (n_classes,)
    The class labels.""",
    "intercept_scaling_": """\
intercept_scaling_ : float
    The constant feature behind the intercept.""",
    "n_features_in_": """\
n_features_in_ : int
    Number of features seen during ``fit``.""",
    "feature_names_in_": """\
feature_names_in_ : ndarray of shape (`n_features_in_`,)
    Names of features seen during ``fit``, when ``X`` has string column
    names.""",
    "n_iter_": """\
n_iter_ : int
    Number of epochs run by the last ``fit`` (1 after ``partial_fit``).""",
    "loss_curve_": """\
loss_curve_ : list of float
    Mean training loss of each epoch of the last ``fit``; each
    ``partial_fit`` call appends the mean loss of its pass.  A stream
    keeps the newest entries, in constant memory: a call that finds
    10 000 entries first drops the older half.  For the whole history of
    a stream, read ``loss_curve_[-1]`` after each call.""",
    "validation_scores_": """\
validation_scores_ : list of float or None
    With ``early_stopping``, the score on the held-out
    ``validation_fraction`` after each epoch of the last ``fit``;
    ``None`` otherwise.""",
    "t_": """\
t_ : float
    Number of samples seen (over all epochs and calls) plus one.""",
    "random_state_shuffling": """\
random_state : int, RandomState instance or None, default=None
    Seeds the shuffling.""",
    "loss_pa": """\
loss : {"hinge", "squared_hinge"}, default="hinge"
    ``"hinge"`` is PA-I, ``"squared_hinge"`` is PA-II.""",
    "support_vectors_": """\
support_vectors_ : ndarray or CSR matrix of shape (n_SV, n_features)
    The support vectors, dense or CSR as the training data.""",
    "C_pa": """\
C : float, default=1.0
    Aggressiveness (maximum step for PA-I, inverse damping for PA-II);
    ``np.inf`` gives plain PA.""",
    "epsilon_insensitive": """\
epsilon : float, default=0.1
    Width of the insensitive zone: errors smaller than this are ignored.""",
    "warm_start_gaussian": """\
warm_start : bool, default=False
    Whether ``fit`` starts from the previous mean and covariance.""",
    "max_iter_epochs": """\
max_iter : int, default=1000
    Maximum number of epochs in ``fit``; ``partial_fit`` makes one pass.""",
    "tol_square_loss": """\
tol : float or None, default=1e-3
    Stop when the average online square loss of an epoch is not below
    ``best_loss - tol`` for ``n_iter_no_change`` epochs.""",
    "early_stopping_r2": """\
early_stopping : bool, default=False
    Hold out ``validation_fraction`` of the data and stop when its R^2
    stops improving.""",
    "verbose_updates": """\
verbose : int, default=0
    If positive, print one line per epoch (``Epoch i/max_iter``, average
    loss, validation score, time; ``partial_fit`` prints ``partial_fit
    call n``).  From 2 on the line adds the updates and the norms.""",
    "fit_intercept": """\
fit_intercept : bool, default=True
    Whether to learn an intercept, the weight of a constant feature
    ``intercept_scaling`` appended to every sample.""",
    "class_weight_step": """\
class_weight : dict, "balanced" or None, default=None
    Weights per class: the class weight of the true class multiplies the
    step (as does the sample weight).""",
    "intercept_classes": """\
intercept_ : ndarray of shape (1,) if n_classes == 2 else (n_classes,)
    Intercepts.""",
    "coef_one_column": """\
coef_ : ndarray of shape (n_features,)
    Weights (averaged if ``average``).""",
    "intercept_one_column": """\
intercept_ : ndarray of shape (1,)
    Intercept (averaged if ``average``).""",
    "fit_intercept_norm": """\
fit_intercept : bool, default=True
    Whether to learn an intercept, the weight of a constant feature
    ``intercept_scaling`` appended to every sample (it counts in the
    norm of the weights).""",
    "tol_margin": """\
tol : float or None, default=1e-3
    Stop when the average hinge loss ``[1 - m]_+`` of the margins ``m``
    (binary: ``y s``; multiclass: ``s_y`` minus the top wrong score) of
    an epoch is not below ``best_loss - tol`` for ``n_iter_no_change``
    epochs (validation accuracy with ``early_stopping``).  ``None`` runs
    ``max_iter`` epochs.""",
    "covariance": """\
covariance : {"diagonal", "full"}, default="diagonal"
    ``"diagonal"`` keeps one variance per feature (per block);
    ``"full"`` the whole matrix (refused when it would not fit in
    memory), updated with BLAS.""",
    "covariance_floor": """\
covariance_floor : float in (0, 1] or None, default=None
    Forgetting, for data that drift: a lower bound on the variances of
    the diagonal covariance.  After each update the variances of the
    sample's non-zero features (and of the intercept) are raised to it,
    ``Sigma_jj = max(Sigma_jj, covariance_floor)``: the projection of the
    covariance onto the matrices whose eigenvalues are at least the bound
    (ARCOR: Vaits and Crammer, ALT 2011; Moroshko, Vaits and Crammer, JMLR
    2015), at the cost of the sample's non-zeros.  Without it the
    covariance shrinks for ever and, after a change in the data, the model
    barely moves; with it every feature keeps a step of at least that
    variance and a model recovers after a change, at the price of a noisier
    model when the data do not drift.  ``None``: no floor (the rule alone,
    to the bit).  The prior variance is 1; refused with
    ``covariance="full"``.  See the user guide, "Learning under drift".""",
    "tagger_max_iter": """\
max_iter : int, default=10
    Passes over the training sequences in :meth:`fit` (at most, with
    ``tol``).""",
    "tagger_shuffle": """\
shuffle : bool, default=True
    Shuffle the sequences before each pass.""",
    "tagger_random_state": """\
random_state : int, RandomState instance or None, default=None
    Seed of the shuffling.""",
    "tagger_verbose": """\
verbose : int, default=0
    If positive, print one line per pass (``Epoch i/max_iter``, the
    fraction of mispredicted sequences as the average loss, time;
    ``partial_fit`` prints ``partial_fit call n``).  From 2 on the line
    adds the mispredicted sequences, updates, weight norm and tokens
    seen.""",
    "tagger_tol": """\
tol : float or None, default=None
    Stop :meth:`fit` when the fraction of training sequences mispredicted
    in a pass is not below ``best - tol`` for ``n_iter_no_change``
    consecutive passes (a ``ConvergenceWarning`` when ``max_iter`` passes
    run first).  ``None`` makes ``max_iter`` passes.""",
    "tagger_n_iter_no_change": """\
n_iter_no_change : int, default=5
    Number of passes with no improvement to wait before stopping.""",
    "tagger_early_stopping": """\
early_stopping : bool, default=False
    Hold out ``validation_fraction`` of the training sequences (whole
    sequences, never trained on, chosen by ``random_state``) and stop
    :meth:`fit` when their token accuracy (:meth:`score` after each
    pass) is not above ``best + tol`` for ``n_iter_no_change``
    consecutive passes (with ``tol=None`` every pass is scored and
    ``max_iter`` passes run).  ``partial_fit`` ignores it.""",
    "tagger_validation_fraction": """\
validation_fraction : float, default=0.1
    Fraction of the training sequences held out with
    ``early_stopping``; strictly between 0 and 1.""",
    "tagger_classes_": """\
classes_ : ndarray of shape (n_classes,)
    The labels.""",
    "tagger_coef_": """\
coef_ : ndarray of shape (n_classes, n_features)
    Emission weights (averaged when ``average``).""",
    "tagger_transitions_": """\
transitions_ : ndarray of shape (n_classes, n_classes)
    ``transitions_[i, j]`` is the weight of label ``i`` followed by ``j``.""",
    "tagger_start_transitions_": """\
start_transitions_ : ndarray of shape (n_classes,)
    Weight of a sequence starting with each label.""",
    "tagger_end_transitions_": """\
end_transitions_ : ndarray of shape (n_classes,)
    Weight of a sequence ending with each label.""",
    "tagger_vectorizer_": """\
vectorizer_ : FeatureDictMapper or None
    The feature-dict to column mapping fitted by :meth:`fit` (None for
    arrays).""",
    "tagger_n_features_in_": """\
n_features_in_ : int
    Number of features per token.""",
    "tagger_n_iter_": """\
n_iter_ : int
    Passes made (by every ``fit`` and ``partial_fit`` call since the
    last ``fit`` started over).""",
    "tagger_loss_curve_": """\
loss_curve_ : list of float
    Fraction of the training sequences mispredicted in each pass of the
    last ``fit``; each ``partial_fit`` call appends that of its pass.  A
    stream keeps the newest entries, in constant memory: a call that
    finds 10 000 entries first drops the older half.  For the whole
    history of a stream, read ``loss_curve_[-1]`` after each call.""",
    "tagger_validation_scores_": """\
validation_scores_ : list of float or None
    Token accuracy on the held-out sequences after each pass of the last
    ``fit`` with ``early_stopping``, else None.""",
    "tagger_t_": """\
t_ : float
    Sequences seen (the averaging counter).""",
}

_PLACEHOLDER = re.compile(r"^( *)%\((\w+)\)s$", re.M)


def fill_text(text, **blocks):
    """``text`` with each ``%(name)s`` line replaced by the entry ``name`` of
    ``blocks`` or else of :data:`ENTRIES`, indented as the placeholder; an
    unknown name raises ``KeyError``.

    An entry may be written with any indentation (a module-level block
    indented as a class docstring, or not): the indentation its lines share
    is removed first.  The placeholder's own indentation is the docstring's,
    which Python 3.13 strips when it compiles a docstring and earlier
    versions keep, so the filled text has the same layout on every version.
    """
    entries = {**ENTRIES, **blocks}

    def entry(match):
        indent, name = match.groups()
        block = fill_text(textwrap.dedent(entries[name].strip("\n")), **blocks)
        return "\n".join(indent + line if line else line for line in block.split("\n"))

    return _PLACEHOLDER.sub(entry, text)


def fill_doc(cls):
    """Class decorator: fill the shared entries of ``cls.__doc__``."""
    if cls.__doc__:
        cls.__doc__ = fill_text(cls.__doc__)
    return cls


# ------------------------------------------------------------------------
# Where the documentation and the source are published.
#
# The "?" of an estimator's HTML representation (in a notebook) opens the
# estimator's page of this package's API reference, which the documentation
# build writes to ``gen_modules/sklearn_pa.<Estimator>.html``.
# ------------------------------------------------------------------------


#: Root of the published documentation (``doc/conf.py`` uses it as
#: ``html_baseurl``).
DOCS_URL = "https://sklearn-pa.readthedocs.io/en/latest/"

#: The source repository (the documentation's header links to it).
REPOSITORY_URL = "https://github.com/sklearn-pa/sklearn-pa"

#: The API page of an estimator exported at the top of the package.
DOC_LINK_TEMPLATE = DOCS_URL + "gen_modules/sklearn_pa.{estimator_name}.html"


def set_doc_links(classes):
    """Point the HTML representation's documentation link of ``classes``
    (scikit-learn's ``_doc_link_module`` / ``_doc_link_template`` protocol)
    to this package's API pages instead of scikit-learn's."""
    for cls in classes:
        cls._doc_link_module = "sklearn_pa"
        cls._doc_link_template = DOC_LINK_TEMPLATE
