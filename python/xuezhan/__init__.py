from xuezhan._core import __version__
