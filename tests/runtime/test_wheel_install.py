"""`flue_runtime.mount.wheel_install`: a package installed from a wheel, told apart from a source tree and an
editable install by its distribution's metadata (tests/runtime/test_hookless.py runs the three for real); the
packaging standards it reads them by: names (PEP 503 and 508, through `packaging`), editable installs (PEP 610)."""

from __future__ import annotations

import json
from importlib.metadata import Distribution
from pathlib import Path

import pytest
from support.builds import build_wheel
from support.envs import install
from support.imports import ImportSandbox
from test_hookless import DIST, PACKAGE, write_project

from flue_runtime.mount.wheel_install import WheelInstall, editable_folder, is_distribution_name, wheel_install


@pytest.mark.slow  # a wheel built and installed
def test_a_wheel_install_an_editable_one_and_a_source_tree(tmp_path: Path) -> None:
    project = write_project(tmp_path / "project")
    wheel = build_wheel(project, tmp_path / "dist")
    sites = {name: tmp_path / name for name in ("wheel", "linked")}
    for site in sites.values():
        install("--target", str(site), str(wheel), cwd=tmp_path)
    # An install whose files are in place but whose direct_url.json says editable (PEP 660: a backend may link the
    # files into site-packages, as flit's --symlink does) is dev mode.
    [info] = sites["linked"].glob("*.dist-info")
    (info / "direct_url.json").write_text(json.dumps({"url": project.as_uri(), "dir_info": {"editable": True}}))
    for name, entry in (*sites.items(), ("source", project / "src")):
        box = ImportSandbox()
        box.add(entry)
        try:
            found = wheel_install(PACKAGE)
        finally:
            box.close()
        assert found == (WheelInstall(DIST, str(entry)) if name == "wheel" else None), name


def dist_info(folder: Path, direct_url: object) -> Distribution:
    info = folder / "demo-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(direct_url if isinstance(direct_url, str) else json.dumps(direct_url))
    return Distribution.at(info)


@pytest.mark.parametrize(
    ("direct_url", "expected"),
    [
        ({"url": "file:///work/demo", "dir_info": {"editable": True}}, "/work/demo"),
        ({"url": "file:///work/my%20demo", "dir_info": {"editable": True}}, "/work/my demo"),
        ({"url": "https://example.invalid/demo", "dir_info": {"editable": True}}, ""),  # editable, not from a folder
        ({"url": "file:///work/demo", "dir_info": {"editable": False}}, None),
        ({"url": "file:///work/demo", "dir_info": {}}, None),
        ({"url": "https://example.invalid/demo.whl", "archive_info": {}}, None),
        ({"dir_info": {"editable": True}}, ""),  # editable, its folder unsaid
        ("not json", None),
        ([1, 2], None),
        (None, None),  # installed from an index: no direct_url.json at all
    ],
)
def test_an_editable_install_is_what_pep_610_says(tmp_path: Path, direct_url: object, expected: str | None) -> None:
    assert editable_folder(dist_info(tmp_path, direct_url)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("flue-skills", True),
        ("Flue_Skills", True),
        ("zope.interface", True),
        ("a", True),
        ("a1", True),
        ("pkg-", False),  # PEP 508: a name ends in a letter or digit
        ("-pkg", False),
        ("pkg_.", False),
        ("./pkg", False),
        ("pkg/sub", False),
        ("pkg name", False),
        ("", False),
    ],
)
def test_a_distribution_name_is_what_pep_508_says(text: str, expected: bool) -> None:
    assert is_distribution_name(text) is expected
