"""Version and platform limits: parsing, and whether a block applies (packaging is the oracle)."""

from __future__ import annotations

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from sphinx_jaxcheck.expect.conditions import Runtime, platforms, specifier, why_skipped
from sphinx_jaxcheck.model import Limits

VERSIONS = ["0.4.30", "0.4.35", "0.5.0", "0.6.1", "0.7.0", "0.8.0rc1", "0.9.9", "0.10.2"]


@pytest.mark.parametrize(
    "written", ["<0.5", ">=0.7,<0.9", " >=0.7 , <0.9 ", "==0.4.*", "~=0.4.30", "!=0.6.1", "0.10.2"]
)
def test_a_block_applies_exactly_where_packaging_says_the_specifier_holds(written: str) -> None:
    spec = specifier(written)
    oracle = SpecifierSet(written.strip() if written.strip()[0] in "<>=!~" else f"=={written}")
    for version in VERSIONS:
        runs = why_skipped(Limits(jax_version=spec), Runtime(version, "cpu")) is None
        assert runs == oracle.contains(Version(version), prereleases=True), (written, version)


@pytest.mark.parametrize("written", ["", "before 0.5", "<", "0.5 <", ">=0.7;<0.9", "latest"])
def test_a_malformed_specifier_is_refused(written: str) -> None:
    with pytest.raises(ValueError):
        specifier(written)


def test_platform_names() -> None:
    assert platforms("gpu") == ("gpu",)
    assert platforms("cpu, TPU gpu,cpu") == ("cpu", "tpu", "gpu")
    for bad in ("", "npu", "cpu, cuda", ","):
        with pytest.raises(ValueError):
            platforms(bad)


def test_why_a_block_does_not_run() -> None:
    gpu = Limits(platforms=("gpu",))
    assert why_skipped(gpu, Runtime("0.10.2", "cpu")) == "platforms gpu: the workers run on cpu"
    assert why_skipped(gpu, Runtime("0.10.2", "gpu")) is None
    assert why_skipped(Limits(), Runtime("0.10.2", "cpu")) is None
    old = Limits(jax_version="<0.5")
    assert why_skipped(old, Runtime("0.10.2", "cpu")) == "jax-version <0.5 excludes jax 0.10.2"
    # Nothing known about the run: nothing to exclude it by.
    assert why_skipped(Limits("<0.5", ("gpu",)), Runtime(None, None)) is None
