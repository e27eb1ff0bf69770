"""The command line, one module per group of commands; ``symgpu.cli:main`` is the entry point."""

from __future__ import annotations

from symgpu.cli.app import create_parser, main

__all__ = ["create_parser", "main"]
