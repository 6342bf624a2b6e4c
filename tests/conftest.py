"""Shared pytest fixtures: where the built binaries and sources are.

CORDON_BUILD points at the build directory (cordon, cordonc, policies/),
CORDON_SRC at the source tree (tests/, policies/).  tests/run-pytest.sh
sets both; run by hand, they default to this checkout's build/.
"""
import os
import pathlib

import pytest

SRC = pathlib.Path(os.environ.get("CORDON_SRC",
                                  pathlib.Path(__file__).resolve().parent.parent))
BUILD = pathlib.Path(os.environ.get("CORDON_BUILD", SRC / "build"))
PYTHON = "/usr/bin/python3"


def pytest_configure(config):
    config.addinivalue_line("markers", "workload: real scientific workloads")


@pytest.fixture(scope="session")
def build_dir():
    return BUILD


@pytest.fixture(scope="session")
def src_dir():
    return SRC


@pytest.fixture(scope="session")
def cordon_bin():
    return BUILD / "cordon"


@pytest.fixture(scope="session")
def cordonc_bin():
    return BUILD / "cordonc"


@pytest.fixture(scope="session")
def policies_dir():
    """Compiled shipped policies (NAME.cpol)."""
    return BUILD / "policies"
