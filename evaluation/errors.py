"""User-facing errors of the evaluation engine.

Every message says what went wrong and what to do about it; the worker shows it on the
submission page as is.
"""

from __future__ import annotations


class EvaluationError(Exception):
    """Base class of every error the engine raises on purpose."""


class InvalidModelId(EvaluationError, ValueError):
    """The model id is not of the form ``organisation/name``."""


class ModelNotFound(EvaluationError, LookupError):
    """Neither the bundled catalogue nor the Hugging Face Hub has the model."""


class RevisionRefused(EvaluationError, ValueError):
    """The revision is not one Glossa evaluates: a pull-request ref, a branch other than the
    default one, a commit outside the default branch and the tags, or (bundled model) any
    label other than the one revision its package ships."""


class RemoteCodeRequired(EvaluationError):
    """The model needs ``trust_remote_code`` and an administrator has not allowed it."""


class ModelLoadError(EvaluationError):
    """The model exists but its weights could not be loaded."""


class ModelTooLarge(ModelLoadError):
    """The model has more parameters, or more bytes to download, than this deployment allows."""


class DatasetNotFound(EvaluationError, LookupError):
    """Neither the data directory nor the Hugging Face Hub has the dataset."""


class InvalidDataset(EvaluationError, ValueError):
    """A dataset folder exists but its files are malformed."""


__all__ = [
    "EvaluationError",
    "InvalidModelId",
    "ModelNotFound",
    "RevisionRefused",
    "RemoteCodeRequired",
    "ModelLoadError",
    "ModelTooLarge",
    "DatasetNotFound",
    "InvalidDataset",
]
