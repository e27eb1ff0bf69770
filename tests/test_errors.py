"""Error classes format as 'path: where: problem; hint' and survive pickling."""

from __future__ import annotations

import pickle

import pytest

from symgpu import errors


@pytest.mark.parametrize("cls", [errors.ModelFileError, errors.ExpressionError, errors.UnitMismatchError])
def test_model_file_errors_format_and_pickle(cls):
    error = cls("equations/x.toml", "equation e", "something is wrong", "do this")
    assert str(error) == "equations/x.toml: equation e: something is wrong; do this"
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is cls and str(again) == str(error)
    assert isinstance(error, ValueError) and isinstance(error, errors.SymgpuError)


def test_message_without_where_or_hint():
    assert str(errors.ModelFileError("f.toml", "", "bad")) == "f.toml: bad"


@pytest.mark.parametrize("cls", [errors.EvaluationError, errors.DomainError, errors.UsageError, errors.DerivationError,
                                 errors.FitCheckError, errors.CertificateError, errors.NoAnswerHere])
def test_other_errors_are_symgpu_errors(cls):
    error = cls("message")
    assert isinstance(error, errors.SymgpuError) and str(pickle.loads(pickle.dumps(error))) == "message"
