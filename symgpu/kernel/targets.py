"""Which compiled architecture (``sm_90``) runs on a compute capability (``cc_9_0``), and which of a
compiler output's entries for one kernel the occupancy answer reads.

A fat binary (``nvcc -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90``) holds one
machine-code entry per target, and ``ptxas -v`` prints one ``Compiling entry function ... for 'sm_XY'``
block per kernel and target, each with its own registers. The CUDA driver runs machine code built for
``sm_XY`` on compute capability X.Z with Z >= Y only (an arch-specific ``sm_90a`` on 9.0 alone), and of
several that run it takes the closest; :func:`choose` applies the same rule to the entries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from symgpu import errors, textfiles

_SM = re.compile(r"^sm_(\d+)(\d)([a-z]?)$")
_CC = re.compile(r"^cc_(\d+)_(\d)$")


def _version(pattern: re.Pattern[str], text: str) -> tuple[int, int, str] | None:
    found = pattern.match(text)
    if found is None:
        return None
    groups = found.groups()
    return int(groups[0]), int(groups[1]), groups[2] if len(groups) > 2 else ""


def runs_on(arch: str, cc: str) -> bool | None:
    """Whether machine code for ``arch`` runs on compute capability ``cc``; None where either is not read."""
    built, asked = _version(_SM, arch), _version(_CC, cc)
    if built is None or asked is None:
        return None
    (major, minor, suffix), (on_major, on_minor, _) = built, asked
    return major == on_major and (minor == on_minor if suffix == "a" else minor <= on_minor)


def note(arch: str, cc: str) -> str:
    """What to say where the compiler output's target (``sm_90``) does not run on the compute capability
    asked (``cc_7_5``); "" where it does, or where either is not read."""
    if runs_on(arch, cc) is not False:
        return ""
    asked = _version(_CC, cc)
    assert asked is not None
    return (f"the kernel was compiled for {arch}, which does not run on {cc}: the registers and shared memory read "
            f"here are {arch}'s; recompile for sm_{asked[0]}{asked[1]} for that GPU's own")


def choose(archs: Sequence[str], cc: str | None, kernel: str) -> int:
    """The index of the entry of one kernel (compiled for ``archs``, in file order) whose machine code runs on ``cc``:
    the one built for ``cc`` itself, else of those that run there the one of the highest minor version (the
    driver's choice); the first where there is one target only, or ``cc`` is not read (:func:`note` says so).

    Raises:
        errors.UsageError: several targets and none runs on ``cc`` (naming them and what to do).
    """
    if len(set(archs)) <= 1 or cc is None or _version(_CC, cc) is None:
        return 0
    asked = _version(_CC, cc)
    assert asked is not None
    exact = [i for i, arch in enumerate(archs) if (v := _version(_SM, arch)) is not None and v[:2] == asked[:2]]
    if exact:
        return exact[0]
    running = [i for i, arch in enumerate(archs) if runs_on(arch, cc)]
    if running:
        return max(running, key=lambda i: _version(_SM, archs[i])[1])  # type: ignore[index]
    return _refuse(archs, cc, kernel, asked)


def _refuse(archs: Sequence[str], cc: str, kernel: str, asked: tuple[int, int, str]) -> int:
    present = ", ".join(dict.fromkeys(a or "(no target named)" for a in archs))
    raise errors.UsageError(
        f"kernel {textfiles.printable(kernel, 200)}: the compiler output holds it for {textfiles.printable(present, 200)}, "
        f"none of which runs on {cc} (machine code runs on its own major version at the same or a higher minor one); "
        f"give the --cc of the GPU it was built for, or recompile with -gencode arch=compute_{asked[0]}{asked[1]},code=sm_{asked[0]}{asked[1]}")
