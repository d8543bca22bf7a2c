"""The dlx engine compiled with bitboards of up to 2048 cells (setup.py): the same interface as _xcover."""

from ._xcover import Engine as Engine
