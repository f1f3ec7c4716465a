"""The package is described in pyproject.toml; this thin entry point keeps
``python setup.py`` and older tools working."""

from setuptools import setup

setup()
