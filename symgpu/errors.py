"""Exception hierarchy of symgpu: every message says where, what, and what to do."""

from __future__ import annotations

from os import PathLike
from pathlib import Path


class SymgpuError(Exception):
    """Base class for all symgpu errors."""


class ModelFileError(ValueError, SymgpuError):
    """A model file is malformed, unsafe or inconsistent.

    Attributes:
        path: the model file (or a description of where the model came from).
        where: the key path inside the file, e.g. ``equation P_K0``.
        problem: what is wrong.
        hint: what to do about it (may be empty).
    """

    def __init__(self, path: str | Path, where: str, problem: str, hint: str = "") -> None:
        self.path = str(path)
        self.where = where
        self.problem = problem
        self.hint = hint
        super().__init__(path, where, problem, hint)

    def __str__(self) -> str:
        # NOTE: keys and values come from untrusted files; a message never echoes more than a screenful.
        where, problem = _cut(self.where, 160), _cut(self.problem, 1200)
        text = f"{self.path}: {where}: {problem}" if where else f"{self.path}: {problem}"
        return f"{text}; {self.hint}" if self.hint else text


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


class ExpressionError(ModelFileError):
    """An expression string uses syntax, names or functions outside the whitelist."""


class UnitMismatchError(ModelFileError):
    """Dimensions disagree inside an expression or between an equation's two sides."""


class ModelCheckError(UnitMismatchError):
    """Several equations of one file fail the unit check; ``problems`` holds each error.

    ``str()`` gives one line per problem, each in the ``path: where: problem; hint`` form.
    """

    def __init__(self, problems: tuple[UnitMismatchError, ...]) -> None:
        self.problems = tuple(problems)
        first = self.problems[0]
        super().__init__(first.path, first.where, first.problem, first.hint)
        self.args = (self.problems,)

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


class EvaluationError(ValueError, SymgpuError):
    """Numeric evaluation was asked with missing, mistyped or out-of-domain inputs."""


class DomainError(EvaluationError):
    """Inputs lie outside the domain in which an equation is valid. ``reason``: which condition failed, in a few words
    (``valid only when 0 < ind_mem_req; got ind_mem_req = 0 req``), for a table cell; "" where none is given."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason


class NoValueError(EvaluationError):
    """An expression has no value at the inputs given: exact arithmetic finds it undefined there (a division by
    zero, 0/0) and no one-sided limit gives it one."""


class DerivationError(SymgpuError):
    """A symbolic operation has no answer (no root, no regime, unsupported form)."""


class NoClosedForm(DerivationError):
    """SymPy cannot isolate the unknown (it sits inside a transcendental function and outside it): at a point
    that gives every other input, the root can still be found numerically (:mod:`symgpu.derive.numeric_solve`).
    ``reason`` says why, in a few words."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


class NoExtremumCandidate(DerivationError):
    """An extremum where no critical point, cusp, end or plateau edge qualifies: at a point, the supremum (infimum)
    approached at an open end may still answer it (:mod:`symgpu.derive.extremum_supremum`). ``end``: a finite open end
    whose limit beats every candidate there, as (its point as text, in the variable's declared unit; the side, "-" or "+")."""

    def __init__(self, message: str, end: tuple[str, str] | None = None) -> None:
        super().__init__(message)
        self.end = end


class NoAnswerHere(DerivationError):
    """A question has answers, but none holds at the given point (no root lies in its regime
    there): a failed check, so the command line exits 1."""


class TargetOutOfReach(NoAnswerHere):
    """A solve asked at a point whose target the quantity never reaches there (it stays below or above
    it over the variable's whole scanned range), where the closed form gives a root that is none: the
    answer is that there is no root, said by the numeric check (which lets it through)."""


class UsageError(ValueError, SymgpuError):
    """A caller (API or command line) asked for something that does not exist."""


class ArgumentError(UsageError):
    """A caller's argument (an API keyword, a command-line option: not a model file's text) that
    does not parse; ``where`` names it (``limit point '100 GB/s'``, ``--to``)."""

    def __init__(self, model_id: str, where: str, problem: str, hint: str = "") -> None:
        self.model_id, self.where, self.problem, self.hint = model_id, where, problem, hint
        super().__init__(f"{model_id}: {where}: {problem}" + (f"; {hint}" if hint else ""))


class ArgumentTypeError(ArgumentError, TypeError):
    """An API argument of the wrong type (``preset=3``, ``substitute="a=b"``): ``where`` names the argument and what was
    given, ``problem`` what is expected (:mod:`symgpu.arguments`); a TypeError as Python's own, a UsageError as symgpu's."""


class NotAModelError(TypeError, SymgpuError):
    """A public function that takes a built model (``symgpu.load(ID)``) was given something else, such as a model id."""


def require_model(value: object, function: str) -> None:
    """Refuse ``value`` unless it is a built model (``symgpu.validate("interval_analysis")`` failed with a bare
    AttributeError: an outside tester's finding).

    Raises:
        NotAModelError: naming ``function``, what it was given, and ``symgpu.load(...)`` to pass instead.
    """
    if hasattr(value, "defining") and hasattr(value, "definition"):
        return
    cure = f"symgpu.load({_cut(repr(str(value)), 200)})" if isinstance(value, (str, PathLike)) else "symgpu.load(ID)"
    raise NotAModelError(f"{function} takes a model, not {_cut(repr(value), 200)} (a {type(value).__name__}): pass {cure}")


class CertificateError(SymgpuError):
    """An answer failed its numeric certificate: the closed form disagrees with the numbers.

    The message names the operation, the check that failed and the point where it failed;
    the command line exits 1 (a failed check), never printing the answer as a value.
    ``finding``: where and what failed, without the advice (for a caller that refuses the
    question for a reason of its own and quotes it); empty where the raiser gives none.
    """

    def __init__(self, message: str, *, finding: str = "") -> None:
        self.finding = finding
        super().__init__(message)


class FitCheckError(SymgpuError):
    """A fit failed one of its checks (not converged, outside the model's valid region, poor,
    or a parameter undetermined); ``result`` holds the fit with its checks. Exit code 1."""

    def __init__(self, message: str, result: object = None) -> None:
        self.message = message
        self.result = result
        super().__init__(message, result)

    def __str__(self) -> str:
        return self.message


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP reached a running command (:func:`symgpu.leftovers.terminations_raise`):
    raised like Ctrl-C's KeyboardInterrupt so that cleanup runs; the command line exits
    128 + ``signum``."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signum)

    def __str__(self) -> str:
        return f"terminated by signal {self.signum}"
