"""The one build step pyproject.toml cannot express: the compiled parts.

The exact-cover engine (`cpsolve/search/_xcover.c`, the `dlx` backend) and the canonical forms of
solutions (`cpsolve/problem/_canon.c`, the fast path of `canonical.py`) are C extensions compiled
at install: no JIT warm-up, no Python per search node or per symmetry element, nothing to
download. Without a C compiler cpsolve still installs: `cpsolve backends` then says dlx is missing,
and canonical forms use their Python twin.
"""

from setuptools import Extension, setup


def native(name: str, source: str | None = None, macros: list[tuple[str, str | None]] | None = None) -> Extension:
    """One compiled module: `cpsolve.a.b._name` from `cpsolve/a/b/_name.c` (or `source`, compiled with
    `macros`), sharing `cpsolve/_native.h`.

    Optional: where it cannot be compiled, the Python twin runs instead (or, for the dlx engine, the
    backend reports itself missing)."""
    return Extension(
        name,
        sources=[source or name.replace(".", "/") + ".c"],
        include_dirs=["cpsolve"],
        depends=["cpsolve/_native.h"],
        define_macros=macros or [],
        extra_compile_args=["-O3", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        optional=True,
    )


setup(
    ext_modules=[
        native("cpsolve.search._xcover"),  # the dlx backend's exact-cover engine
        # the same engine with bitboards of up to 2048 cells (32 words), for larger containers (dlx.py)
        native("cpsolve.search._xcover_wide", "cpsolve/search/_xcover.c",
               [("MAXW", "32"), ("XCOVER_MODULE", "_xcover_wide")]),
        native("cpsolve.search._estimate"),  # Knuth's tree estimate (search/estimate.py has the twin)
        native("cpsolve.problem._canon"),  # canonical forms (problem/canonical.py has the twin)
        native("cpsolve.analysis.design._snakes"),  # the snake census's path search (snake.py has the twin)
        native("cpsolve.analysis._disassemble"),  # the disassembly search (disassembly.py has the twin)
        native("cpsolve.analysis._turns"),  # the exact sweep test of a quarter turn (turns.py has the twin)
    ],
)
