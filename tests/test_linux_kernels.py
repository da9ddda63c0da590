"""Which Debian kernel package the harness fetches (no download here)."""

from __future__ import annotations

import json
import subprocess
from types import SimpleNamespace

import pytest

from pagelab.linux import kernels
from pagelab.reproductions import _linux_grid as grid


def test_the_reference_packages_are_the_releases_the_reference_ran():
    runs = json.loads(grid.REFERENCE.read_text())
    releases = {r["release"] for r in _releases(runs)}
    for series, package in kernels.REFERENCE_PACKAGES.items():
        assert kernels.SERIES[series].match(package), package
        release = package.removeprefix("linux-image-").removesuffix("-unsigned")
        assert release in releases, (series, release, releases)


def _releases(node):
    """Every dict with a "release" anywhere in `node`."""
    if isinstance(node, dict):
        if "release" in node:
            yield node
        for v in node.values():
            yield from _releases(v)
    elif isinstance(node, list):
        for v in node:
            yield from _releases(v)


@pytest.mark.parametrize(
    ("known", "want"),
    [
        # The reference's package while the archive has it, though a newer one exists.
        (["linux-image-6.12.117+deb12-amd64-unsigned", "linux-image-6.12.118+deb12-amd64-unsigned"],
         "linux-image-6.12.117+deb12-amd64-unsigned"),
        # Once it is gone, the newest of the series.
        (["linux-image-6.12.118+deb12-amd64-unsigned", "linux-image-6.12.9+deb12-amd64-unsigned"],
         "linux-image-6.12.118+deb12-amd64-unsigned"),
    ],
)  # fmt: skip
def test_the_package_is_the_references_while_apt_offers_it(monkeypatch, known, want):
    monkeypatch.delenv("PAGELAB_LINUX_6_12", raising=False)
    monkeypatch.setattr(kernels.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(subprocess, "run",
                        lambda *a, **k: SimpleNamespace(stdout="\n".join(known)))  # fmt: skip
    assert kernels.package_for("6.12") == want
    monkeypatch.setenv("PAGELAB_LINUX_6_12", "linux-image-6.12.1+deb12-amd64-unsigned")
    assert kernels.package_for("6.12") == "linux-image-6.12.1+deb12-amd64-unsigned"
