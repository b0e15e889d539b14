"""What a sweep's workers must share with it: the Python package and the scenario, byte for
byte (a worker on another machine with another checkout would give other hashes)."""
import hashlib
import os


def fingerprint(root, scenario):
    """SHA-256 over the package's .py files and the scenario file (`scenario` relative to
    `root`), by relative path."""
    h = hashlib.sha256()
    pkg = os.path.join(root, "pybind", "dpusim")
    files = []
    for folder, _, names in os.walk(pkg):
        files += [os.path.join(folder, n) for n in names if n.endswith(".py")]
    files.append(os.path.join(root, scenario))
    for path in sorted(files):
        h.update(os.path.relpath(path, root).encode() + b"\0")
        with open(path, "rb") as f:
            h.update(f.read())
        h.update(b"\0")
    return h.hexdigest()
