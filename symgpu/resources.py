"""Where symgpu's bundled data lives: the checkout's top-level ``equations/`` and ``templates/``
when symgpu runs from a checkout (editable install), else the copies installed inside the
package by the wheel (``symgpu/_data/``)."""

from __future__ import annotations

import os
from pathlib import Path

#: The ``symgpu`` package folder.
PACKAGE = Path(__file__).resolve().parent
#: The folder above the package: the repository root in a checkout.
CHECKOUT = PACKAGE.parent
#: Extra model folders, separated by ``os.pathsep``, searched after the bundled models.
ENV_MODEL_PATH = "SYMGPU_MODEL_PATH"
#: Replaces the bundled model folder (kept from schema 1; ``SYMGPU_MODEL_PATH`` adds instead).
ENV_EQUATIONS = "SYMGPU_EQUATIONS"
#: Replaces the folder that measured-data paths of model files are relative to (:func:`data_root`).
ENV_DATA_ROOT = "SYMGPU_DATA_ROOT"


def in_checkout() -> bool:
    """True when the package sits in a source checkout (``pyproject.toml`` beside it)."""
    return (CHECKOUT / "pyproject.toml").is_file() and (CHECKOUT / "equations").is_dir()


def bundled(name: str) -> Path:
    """The bundled data folder ``name`` (``equations`` or ``templates``)."""
    return CHECKOUT / name if in_checkout() else PACKAGE / "_data" / name


def data_root() -> Path:
    """The folder that measurement paths (``data/h100/x.csv``) are relative to: the checkout,
    or the package's ``_data`` folder, where the wheel installs ``data/`` (``$SYMGPU_DATA_ROOT``
    replaces it: data of your own, laid out the same way)."""
    override = os.environ.get(ENV_DATA_ROOT)
    if override:
        return Path(override)
    return CHECKOUT if in_checkout() else PACKAGE / "_data"


def measured_file(relative: str) -> Path:
    """A ``[[measurements]]`` data path: relative to :func:`data_root`, never absolute or ``..``."""
    return data_root() / relative


def equations() -> Path:
    """The bundled model folder (``$SYMGPU_EQUATIONS`` replaces it)."""
    override = os.environ.get(ENV_EQUATIONS)
    return Path(override) if override else bundled("equations")


def model_folders() -> list[Path]:
    """Folders searched for a model id: the bundled one, then each of ``$SYMGPU_MODEL_PATH``."""
    extra = [Path(p) for p in os.environ.get(ENV_MODEL_PATH, "").split(os.pathsep) if p.strip()]
    return [equations(), *extra]


def reports() -> Path:
    """Default folder of ``symgpu report --all``: the checkout's ``reports/``, else ``./reports``."""
    return CHECKOUT / "reports" if in_checkout() else Path.cwd() / "reports"


def find_model(model_id: str, folder: Path | None = None) -> Path | None:
    """The file of model ``model_id`` in ``folder`` or, by default, the first model folder that has it."""
    for candidate in ([folder] if folder is not None else model_folders()):
        path = candidate / f"{model_id}.toml"
        if path.is_file():
            return path
    return None


def shadowed_models(model_id: str) -> list[Path]:
    """Files of model ``model_id`` in later model folders (``$SYMGPU_MODEL_PATH``) that the first
    one found hides: a user model with a bundled model's id is never the one loaded by id."""
    found = [f / f"{model_id}.toml" for f in model_folders() if (f / f"{model_id}.toml").is_file()]
    return found[1:]


def base_model_file(path: Path, extends: str) -> Path:
    """The file of base model ``extends`` of the model file ``path``: beside it first, then
    in the model folders (the path beside it when neither has one; the caller checks it exists)."""
    beside = path.parent / f"{extends}.toml"
    # NOTE: whatever is beside counts (a pipe, a folder): it is refused when read, never skipped
    # for a bundled model of the same id
    return beside if os.path.lexists(beside) else (find_model(extends) or beside)
