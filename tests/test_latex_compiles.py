"""Every generated LaTeX report compiles with pdflatex (CI installs a minimal TeX Live:
texlive-latex-base texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended lmodern)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from symgpu.report import render

PDFLATEX = shutil.which("pdflatex")
TEX_FILES = sorted(render.REPORTS.glob("*/*.tex"))


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex is not installed (Debian: texlive-latex-base "
                    "texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended lmodern)")
@pytest.mark.parametrize("tex", TEX_FILES, ids=[p.stem for p in TEX_FILES])
def test_report_compiles(tex: Path, tmp_path: Path) -> None:
    work = tmp_path / tex.parent.name
    shutil.copytree(tex.parent, work)
    result = subprocess.run(
        [PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", tex.name],
        cwd=work, capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=120, check=False,
    )
    pdf = work / tex.with_suffix(".pdf").name
    tail = "\n".join(result.stdout.splitlines()[-25:])
    assert result.returncode == 0 and pdf.is_file() and pdf.stat().st_size > 0, f"pdflatex failed on {tex.name}:\n{tail}"


def test_there_are_reports_to_compile() -> None:
    assert TEX_FILES, "no reports/*/*.tex: run `symgpu report --all`"
