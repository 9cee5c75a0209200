"""Whether a package without a bundle was installed from a wheel, or is a source tree (dev mode).

Reading skills from disk is dev mode when the package is a source tree: on `sys.path`
through PYTHONPATH or a checkout, or through an editable install's `.pth` or finder. From a
package installed from a wheel it means the wheel was built without the flue-skills hook,
and a skill missing from disk means the same. The two are told apart the public way: an
installed package lies beside the `.dist-info` whose RECORD lists its `__init__`
(`importlib.metadata`), unless that distribution's `direct_url.json` says it was installed
editable; a package imported from a zip (a wheel put on `sys.path`) was installed too, since
nobody edits a zip. Only a source tree's folder is listed on the way, so dev mode pays no
`importlib.metadata` import; an answer is kept per package file for the process.

The packaging standards are read here, once, through `packaging` where it has them: a distribution's name
(PEP 503, PEP 508) and an editable install (PEP 610's `direct_url.json`, which `flue-skills ls` reads too).
"""

from __future__ import annotations

import json
import os
import zipimport
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a folder holds metadata to read: a source tree never needs it
    from importlib.metadata import Distribution

from flue_runtime.mount.bundled import module_spec

__all__ = ["WheelInstall", "editable_folder", "is_distribution_name", "wheel_install"]


@dataclass(frozen=True, slots=True)
class WheelInstall:
    """A package installed from a wheel: the distribution's name (None: a zip on sys.path without metadata) and
    the folder or zip it lies in."""

    distribution: str | None
    location: str

    def describe(self) -> str:
        """How a message names it: the distribution, or the zip when it has no metadata."""
        return f"distribution {self.distribution!r}" if self.distribution else f"the archive {self.location}"


_known: dict[str, WheelInstall | None] = {}


def wheel_install(package: str) -> WheelInstall | None:
    """How regular package `package` came onto sys.path: `WheelInstall` from a wheel (or a zip), None from a source
    tree or an editable install (or when it cannot be told: no metadata names it)."""
    spec = module_spec(package)
    origin = getattr(spec, "origin", None)
    if spec is None or not isinstance(origin, str) or origin == "namespace":
        return None
    try:
        return _known[origin]
    except KeyError:
        pass
    location = origin
    for _ in range(package.count(".") + 2):  # the __init__ file, then one folder per dotted part
        location = os.path.dirname(location)
    init = "/".join([*package.split("."), os.path.basename(origin)])
    if isinstance(spec.loader, zipimport.zipimporter):
        found: WheelInstall | None = WheelInstall(_zip_distribution(location, init), location)
    else:
        found = _folder_distribution(location, init, package.split(".")[0])
    _known[origin] = found
    return found


def _folder_distribution(location: str, init: str, top: str) -> WheelInstall | None:
    """The distribution installed in folder `location` whose RECORD lists `init`, unless installed editable."""
    try:
        infos = [name for name in os.listdir(location) if name.endswith(".dist-info")]
    except OSError:
        return None
    if not infos:
        return None  # a source tree: nothing was installed here
    from importlib.metadata import Distribution  # (only here: a source tree's folder holds no .dist-info)

    from packaging.utils import canonicalize_name

    wanted = canonicalize_name(top)
    infos.sort(key=lambda name: canonicalize_name(name.split("-", 1)[0]) != wanted)  # the likely owner first
    for info in infos:
        dist = Distribution.at(os.path.join(location, info))
        if not _lists(dist, init):
            continue
        return None if editable_folder(dist) is not None else WheelInstall(dist.name, location)
    return None


def _zip_distribution(location: str, init: str) -> str | None:
    """The name of the distribution inside zip `location` whose RECORD lists `init`, if any."""
    from importlib.metadata import distributions

    for dist in distributions(path=[location]):
        if _lists(dist, init):
            return dist.name
    return None


def _lists(dist: Distribution, init: str) -> bool:
    """Whether `dist`'s file list (a `.dist-info`'s RECORD) holds `init`."""
    return any(file.as_posix() == init for file in dist.files or ())


def editable_folder(dist: Distribution) -> str | None:
    """The folder an editable install was made from, as its `direct_url.json` says (PEP 610, PEP 660): None when
    it is not editable; "" when its URL is not a `file://` one."""
    try:
        data = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return None
    info = data.get("dir_info") if isinstance(data, dict) else None
    if not (isinstance(info, dict) and info.get("editable") is True):
        return None
    from urllib.parse import unquote, urlparse

    url = data.get("url")
    return unquote(urlparse(url).path) if isinstance(url, str) and url.startswith("file://") else ""


def is_distribution_name(text: str) -> bool:
    """Whether `text` is a distribution's name as PEP 508 spells one (through `packaging`)."""
    from packaging.utils import InvalidName, canonicalize_name

    try:
        canonicalize_name(text, validate=True)
    except InvalidName:
        return False
    return True
