"""``benchmarks/corpus_against.py`` compares this checkout with another: a folder that holds no symgpu is refused
with a one-line message naming it and exit 2, before any question is run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_folder_without_symgpu_is_refused_by_name_with_exit_2(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "corpus_against.py"), str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == f"corpus_against: {tmp_path} is not a symgpu checkout (no symgpu/__init__.py there)\n"
    assert done.stdout == ""
