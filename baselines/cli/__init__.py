"""The `baselines` command line (typer): `app` is the console entry point."""
from baselines.cli.commands import app

__all__ = ["app"]
