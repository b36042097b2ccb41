"""The package list, which pyproject.toml alone cannot give: the top-level configs/ folder ships in the wheel as
baselines/configs (where baselines.core.paths.configs_root looks first); editable installs read configs/ itself.
Data files of the benchmark folders (published figures, curated tables) ship beside their modules."""
from setuptools import find_namespace_packages, setup

setup(packages=[*find_namespace_packages(include=["baselines*", "segmentation*"]), "baselines.configs"],
      package_dir={"baselines.configs": "configs"}, package_data={"baselines.configs": ["**/*.yaml"], "baselines.tasks.scalr": ["published.yaml"],
                    "baselines.tasks.caselawqa": ["published.yaml", "tables/*.csv"]})
