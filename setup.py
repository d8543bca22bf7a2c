"""Build steps that pyproject.toml cannot express: the native engine and the bundled models.

The exact-cover engine (`cpsolve/_xcover.c`, the `dlx` backend) is a C extension compiled at
install: no JIT warm-up, no Python per search node, nothing to download.

The puzzle files live in the top-level `models/` folder (where people look for them); they are
copied into the package at build time so that an installed cpsolve finds its built-in models.
"""

from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py


class BuildPyWithModels(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "cpsolve" / "models"
        target.mkdir(parents=True, exist_ok=True)
        for model in sorted(Path("models").glob("*.yaml")):
            (target / model.name).write_bytes(model.read_bytes())


setup(
    cmdclass={"build_py": BuildPyWithModels},
    ext_modules=[
        Extension(
            "cpsolve._xcover",
            sources=["cpsolve/_xcover.c"],
            extra_compile_args=["-O3", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
            # Without a C compiler cpsolve still installs; `cpsolve backends` then says dlx is missing.
            optional=True,
        )
    ],
)
