"""Backends are named classes; this is their registry.

A backend is a class in :mod:`evaluation.backends` that implements the
:class:`~evaluation.backends.base.Backend` protocol, declares what it is and needs
(``name``, ``needs_weights``, ``takes_argument``, ``requires``, ``extra``) and a :meth:`load` classmethod,
and is decorated with :func:`register`. The name is what ``--backend`` and
``GLOSSA_BACKEND`` choose, optionally followed by ``:`` and an argument
(``openai:http://host:port/v1``). A backend's module imports its heavy packages only
inside its methods, so registering it costs nothing and an optional package (vLLM) is
imported only when its backend is chosen.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Protocol, TypeVar

from evaluation.backends.base import Backend
from evaluation.errors import EvaluationError


class UnknownBackend(EvaluationError):
    """A backend name no registered backend has."""


class BackendClass(Protocol):
    """What a registered backend class declares about itself."""

    name: str
    needs_weights: bool  # runs the model here: it needs the downloaded weights
    takes_argument: bool  # accepts ``name:argument`` (the openai backend's server URL)
    requires: tuple[str, ...]  # importable packages it cannot run without
    extra: str | None  # the pyproject extra that installs them, if optional

    @classmethod
    def load(cls, argument: str, model_id: str, weights: Path | None, *, trust_remote_code: bool) -> Backend:
        """An instance for ``model_id`` (``weights``: its folder, None when not downloaded)."""
        ...


_BACKENDS: dict[str, type[BackendClass]] = {}
B = TypeVar("B", bound=type[BackendClass])


def register(cls: B) -> B:
    """Add a backend class to the registry under its ``name`` (a class decorator)."""
    if not cls.name or ":" in cls.name:
        raise ValueError(f"a backend needs a name without ':': {cls.name!r}")
    _BACKENDS[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    """Remove the backend of that name from the registry, if there is one."""
    _BACKENDS.pop(name, None)


def backend_names() -> list[str]:
    """The names of the registered backends, sorted."""
    return sorted(_BACKENDS)


def backend_class(choice: str) -> type[BackendClass]:
    """The class a backend choice (``name`` or ``name:argument``) names; :class:`UnknownBackend`
    listing the known names when none has it."""
    name = choice.partition(":")[0]
    try:
        return _BACKENDS[name]
    except KeyError:
        raise UnknownBackend(
            f"unknown backend {choice!r}; choose one of {', '.join(backend_names())} "
            "(openai takes the server URL: openai:http://127.0.0.1:8000/v1)"
        ) from None


def needs_weights(choice: str) -> bool:
    """Whether the chosen backend runs the model here (so it needs the weights downloaded)."""
    return backend_class(choice).needs_weights


def load_backend(choice: str, model_id: str, weights: Path | None, *, trust_remote_code: bool = False) -> Backend:
    """Load ``model_id`` with the chosen backend: its packages checked first (a missing
    optional one names the extra to install), then the class's :meth:`load`."""
    cls = backend_class(choice)
    argument = choice.partition(":")[2]
    if argument and not cls.takes_argument:
        raise EvaluationError(f"the {cls.name} backend takes no argument: {choice!r}")
    missing = [package for package in cls.requires if importlib.util.find_spec(package) is None]
    if missing:
        install = f"pip install 'glossa[{cls.extra}]'" if cls.extra else f"pip install {' '.join(missing)}"
        raise EvaluationError(f"the {cls.name} backend needs {', '.join(missing)}: {install}")
    if cls.needs_weights and weights is None:
        raise EvaluationError(f"the {cls.name} backend runs the model here and needs its weights")
    return cls.load(argument, model_id, weights, trust_remote_code=trust_remote_code)
