"""The package list, which pyproject.toml alone cannot give: the top-level configs/ folder ships in the wheel as
baselines/configs (where baselines.core.paths.configs_root looks first), one subpackage per task folder; editable
installs read configs/ itself. Data files of the benchmark folders (published figures, curated tables) ship
beside their modules, found by pattern in every benchmark folder."""
from pathlib import Path

from setuptools import find_namespace_packages, setup

CONFIG_PACKAGES = ["baselines.configs", *(f"baselines.configs.{folder.name}"
                                         for folder in sorted(Path(__file__).parent.joinpath("configs").iterdir())
                                         if folder.is_dir())]

BENCHMARK_DATA = ["*.yaml", "*.txt", "*.csv", "*.json", "tables/*.csv"]  # what a benchmark folder ships beside its code

setup(packages=[*find_namespace_packages(include=["baselines*", "segmentation*"]), *CONFIG_PACKAGES],
      package_dir={"baselines.configs": "configs"},
      package_data={**{name: ["*.yaml"] for name in CONFIG_PACKAGES},
                    "baselines.runs": ["llm_params.yaml", "prices.yaml"],
                    **{package: BENCHMARK_DATA for package in find_namespace_packages(include=["baselines.tasks.*"])}})
