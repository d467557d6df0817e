"""bacc.sklearn: the algorithm is evaluated from the confusion matrices summed over folds."""

from __future__ import annotations

import numpy as np
import pytest

import bacc
from bacc import BaccError, ConfusionMatrix

pytest.importorskip("sklearn")

from sklearn.datasets import load_breast_cancer, load_iris  # noqa: E402
from sklearn.metrics import confusion_matrix  # noqa: E402
from sklearn.model_selection import (  # noqa: E402
    GridSearchCV,
    StratifiedKFold,
    cross_val_predict,
    cross_val_score,
)
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

from bacc.sklearn import (  # noqa: E402
    CVEvaluation,
    balanced_accuracy_scorer,
    evaluate_cv,
    posterior_balanced_accuracy_score,
)


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def _tree():
    return DecisionTreeClassifier(max_depth=3, random_state=0)


def test_the_algorithm_is_evaluated_from_the_folds_summed(cancer):
    X, y = cancer
    res = evaluate_cv(_tree(), X, y, cv=5, random_state=0)
    assert isinstance(res, CVEvaluation)
    assert res.n_folds == 5 and len(res.fold_confusions) == 5
    # Brodersen et al. (2010) section V: evaluate(from_folds(...)) is the algorithm's evaluation
    expected = bacc.evaluate(ConfusionMatrix.from_folds(res.fold_confusions))
    assert res.confusion == expected.confusion
    assert res.evaluation.balanced_accuracy_summary == expected.balanced_accuracy_summary
    assert res.evaluation.p_above_chance == expected.p_above_chance
    assert res.confusion.total == len(y)


def test_fold_matrices_are_those_of_the_same_split_done_by_hand(cancer):
    X, y = cancer
    res = evaluate_cv(_tree(), X, y, cv=5, random_state=0)
    split = StratifiedKFold(5, shuffle=True, random_state=0)
    for (train, test), cm, ev in zip(split.split(X, y), res.fold_confusions, res.folds, strict=True):
        model = _tree().fit(X[train], y[train])
        assert cm.counts.tolist() == confusion_matrix(y[test], model.predict(X[test])).tolist()
        assert ev.confusion == cm
        assert ev.balanced_accuracy_summary == bacc.evaluate(cm).balanced_accuracy_summary


def test_out_of_fold_predictions_give_the_same_summed_matrix(iris):
    X, y = iris
    cv = StratifiedKFold(4, shuffle=True, random_state=1)
    res = evaluate_cv(_tree(), X, y, cv=cv)
    oof = cross_val_predict(_tree(), X, y, cv=cv)
    assert res.confusion == ConfusionMatrix.from_predictions(y.tolist(), oof.tolist())
    assert res.labels == (0, 1, 2)
    np.testing.assert_allclose(
        res.fold_balanced_accuracies,
        [f.sample_balanced_accuracy for f in res.folds],
    )


def test_labels_and_parallel_folds(iris):
    X, y = iris
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    res = evaluate_cv(_tree(), X, names, cv=3, n_jobs=2, labels=["virginica", "versicolor", "setosa"])
    assert res.labels == ("virginica", "versicolor", "setosa")
    assert res.confusion.total == 150
    with pytest.raises(BaccError, match="not in labels"):
        evaluate_cv(_tree(), X, names, cv=3, labels=["setosa", "virginica"])


def test_result_prints_and_serialises(cancer):
    X, y = cancer
    res = evaluate_cv(_tree(), X, y, cv=3)
    text = str(res)
    assert "3 folds" in text and "all" in text
    d = res.to_dict()
    assert len(d["folds"]) == 3 and "balanced_accuracy" in d["algorithm"]


def test_bad_input(cancer):
    X, y = cancer
    with pytest.raises(BaccError, match="confidence"):
        evaluate_cv(_tree(), X, y, confidence=95)
    with pytest.raises(BaccError, match="at least two"):
        evaluate_cv(_tree(), X, np.zeros(len(y)), cv=3)
    with pytest.raises(BaccError, match="statistic must be one of"):
        balanced_accuracy_scorer("max")


def test_the_metric_is_the_posterior_of_the_balanced_accuracy():
    y_true = [0] * 45 + [1] * 10
    y_pred = [0] * 42 + [1] * 3 + [0] * 6 + [1] * 4
    ev = bacc.evaluate([[42, 3], [6, 4]])
    s = ev.balanced_accuracy_summary
    assert posterior_balanced_accuracy_score(y_true, y_pred) == pytest.approx(s.mean, abs=1e-12)
    assert posterior_balanced_accuracy_score(y_true, y_pred, statistic="median") == pytest.approx(s.median, abs=1e-12)
    assert posterior_balanced_accuracy_score(y_true, y_pred, statistic="lower") == pytest.approx(s.lower, abs=1e-12)


def test_the_scorer_works_in_cross_val_score(iris):
    X, y = iris
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    scores = cross_val_score(_tree(), X, y, cv=cv, scoring=balanced_accuracy_scorer("lower"))
    by_hand = []
    for train, test in cv.split(X, y):
        model = _tree().fit(X[train], y[train])
        by_hand.append(posterior_balanced_accuracy_score(y[test], model.predict(X[test]), statistic="lower"))
    np.testing.assert_allclose(scores, by_hand, atol=1e-12)
    # the lower credible bound is below the posterior mean, fold by fold
    means = cross_val_score(_tree(), X, y, cv=cv, scoring=balanced_accuracy_scorer("mean"))
    assert np.all(scores < means)


def test_the_scorer_selects_models_in_a_grid_search_in_parallel(iris):
    X, y = iris
    search = GridSearchCV(
        DecisionTreeClassifier(random_state=0),
        {"max_depth": [1, 3]},
        scoring=balanced_accuracy_scorer("lower", labels=[0, 1, 2]),
        cv=3,
        n_jobs=2,
    ).fit(X, y)
    assert search.best_params_ == {"max_depth": 3}  # a depth-1 stump can tell apart only 2 of 3
    assert 0.0 < search.best_score_ < 1.0


def test_the_result_has_the_evaluations_attributes(cancer):
    import copy

    X, y = cancer
    res = evaluate_cv(DecisionTreeClassifier(random_state=0), X, y, cv=4, random_state=1)
    ev = bacc.evaluate(ConfusionMatrix.from_folds(res.fold_confusions))
    assert res.balanced_accuracy.mean() == pytest.approx(ev.balanced_accuracy.mean(), abs=1e-15)
    assert res.balanced_accuracy_summary.lower == pytest.approx(ev.balanced_accuracy_summary.lower, abs=1e-15)
    assert res.p_above_chance == pytest.approx(ev.p_above_chance, abs=1e-15)
    assert res.sample_accuracy == ev.sample_accuracy
    assert res.exact_interval().lower == pytest.approx(bacc.exact_interval(ev.confusion).lower, abs=1e-15)
    assert "balanced_accuracy" in dir(res) and res.n_folds == 4
    with pytest.raises(AttributeError, match="no_such_thing"):
        res.no_such_thing  # noqa: B018
    assert copy.deepcopy(res).balanced_accuracy_summary == res.balanced_accuracy_summary
