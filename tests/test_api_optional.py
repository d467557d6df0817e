"""A missing optional dependency raises an ImportError subclass that names the extra to install."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import bacc
from bacc.errors import MissingDependencyError, require


def test_missing_dependency_error_is_an_import_error_not_a_value_error():
    assert issubclass(MissingDependencyError, ImportError)
    assert not issubclass(MissingDependencyError, ValueError)
    assert bacc.MissingDependencyError is MissingDependencyError


def test_require_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "duckdb", None)  # import of duckdb now fails
    with pytest.raises(MissingDependencyError, match=r'pip install "bacc\[data\]"'):
        require("duckdb", "data", "counting in files")


def test_require_returns_the_module():
    assert require("numpy", "core", "arrays") is np


def test_to_pandas_without_pandas_names_the_data_extra(monkeypatch):
    res = bacc.evaluate_many(np.array([[[5, 1], [2, 7]]]))
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(MissingDependencyError, match=r"bacc\[data\]"):
        res.to_pandas()


def test_sklearn_helpers_without_scikit_learn_name_the_sklearn_extra(monkeypatch):
    import bacc.sklearn as bs

    monkeypatch.setitem(sys.modules, "sklearn", None)
    with pytest.raises(MissingDependencyError, match=r"bacc\[sklearn\]"):
        bs.evaluate_cv(object(), [[0.0], [1.0]], [0, 1])
