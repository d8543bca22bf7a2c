"""The one build step pyproject.toml cannot express: the native exact-cover engine.

The engine (`cpsolve/search/_xcover.c`, the `dlx` backend) is a C extension compiled at install:
no JIT warm-up, no Python per search node, nothing to download. Without a C compiler cpsolve still
installs; `cpsolve backends` then says dlx is missing.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "cpsolve.search._xcover",
            sources=["cpsolve/search/_xcover.c"],
            extra_compile_args=["-O3", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
            optional=True,
        )
    ],
)
