"""dlnumba's build backend: setuptools', with a wheel that holds the shipped kernels.

``build_wheel`` first compiles the kernels of every CPU level this host runs (``python -m
dlnumba build all``), then has setuptools build the wheel, and makes it the platform wheel that
those objects need: tagged for this Python and platform, and requiring exactly the Numba and
llvmlite that compiled them (the loader refuses objects of any other). Editable installs and
sdists are setuptools' own, and need no kernels.
"""

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import sysconfig
import zipfile

from setuptools import build_meta
from setuptools.build_meta import (build_editable, build_sdist, get_requires_for_build_editable,
                                   get_requires_for_build_sdist,
                                   prepare_metadata_for_build_editable)
from setuptools.config.pyprojecttoml import load_file

# No prepare_metadata_for_build_wheel: frontends then read the metadata of the built wheel,
# which alone knows the versions to pin.
__all__ = ["build_editable", "build_sdist", "build_wheel", "get_requires_for_build_editable",
           "get_requires_for_build_sdist", "get_requires_for_build_wheel",
           "prepare_metadata_for_build_editable"]

_PINNED = ("numba", "llvmlite")  # the objects are tied to their exact versions
_OBJECTS = "dlnumba/_objects/"


def get_requires_for_build_wheel(config_settings=None):
    """setuptools' requirements and dlnumba's own: the wheel's build runs dlnumba."""
    dependencies = load_file("pyproject.toml")["project"]["dependencies"]
    return [*build_meta.get_requires_for_build_wheel(config_settings), *dependencies]


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """Build the kernels of every level this host runs, then the platform wheel that holds
    them (see :func:`platform_wheel`)."""
    subprocess.run([sys.executable, "-m", "dlnumba", "build", "all"], check=True)
    name = build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)
    return os.path.basename(platform_wheel(os.path.join(wheel_directory, name)))


def platform_wheel(path):
    """Rewrite the pure wheel at ``path`` as the platform wheel of the objects it holds: their
    Python and platform in its name and its ``WHEEL`` file, their Numba and llvmlite versions
    pinned in its ``METADATA``, its ``RECORD`` made again. Returns the new wheel's path.

    Raises
    ------
    RuntimeError
        If the wheel holds no level's manifest, or levels built with different versions.
    """
    with zipfile.ZipFile(path) as wheel:
        files = {info.filename: wheel.read(info) for info in wheel.infolist()}
    built = {json.dumps(json.loads(data)["versions"], sort_keys=True)
             for name, data in files.items()
             if name.startswith(_OBJECTS) and name.endswith(".json")}
    if len(built) != 1:
        raise RuntimeError(f"{path} holds {len(built)} sets of versions of shipped kernels "
                           f"({', '.join(sorted(built)) or 'no manifest'}); a wheel needs one")
    versions = json.loads(built.pop())
    dist_info = next(name.partition("/")[0] for name in files
                     if name.endswith(".dist-info/WHEEL"))
    python = versions["python"].replace("cpython-", "cp")  # sys.implementation.cache_tag
    tag = f"{python}-{python}-{re.sub(r'[-.]', '_', sysconfig.get_platform())}"
    metadata = files[f"{dist_info}/METADATA"].decode()
    for name in _PINNED:
        metadata = re.sub(rf"^Requires-Dist: {name}(?![\w-])[^;\n]*", f"Requires-Dist: {name}"
                          f"=={versions[name]}", metadata, flags=re.MULTILINE)
    files[f"{dist_info}/METADATA"] = metadata.encode()
    wheel_file = files[f"{dist_info}/WHEEL"].decode()
    wheel_file = re.sub(r"^Root-Is-Purelib: .*$", "Root-Is-Purelib: false", wheel_file,
                        flags=re.MULTILINE)
    files[f"{dist_info}/WHEEL"] = re.sub(r"^Tag: .*$", f"Tag: {tag}", wheel_file,
                                         flags=re.MULTILINE).encode()
    record = f"{dist_info}/RECORD"
    files[record] = "".join(f"{name},sha256={_digest(data)},{len(data)}\n"
                            for name, data in files.items() if name != record).encode() + (
        f"{record},,\n".encode())
    new_path = os.path.join(os.path.dirname(path), f"{dist_info[:-len('.dist-info')]}-{tag}.whl")
    with zipfile.ZipFile(new_path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
    if new_path != path:
        os.remove(path)
    return new_path


def _digest(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
