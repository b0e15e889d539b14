"""An execnet worker of `./dpusim explore -j N` / `--tx SPEC` (xdist's execnet, the engine
pytest-xdist's own workers run on). The sweep sends this module's source to each gateway
(a local `popen` process, or `ssh=HOST` with a checkout of the same tree); there it sets up
the package from the checkout, then runs the seeds it is sent, one outcome back per seed.

Protocol on the channel: first {"root", "scenario", "explore", "timeout", "fingerprint"}; the
worker answers {"ready": fingerprint} (or {"error": text}); then each seed (an int) gets its
outcome (dpusim.outcome.run_seed) back; None ends the worker."""
import os
import sys


def setup(root):
    """Makes the dpusim checkout at `root` importable (its package and its build's module),
    unless the worker's environment already does (a local worker inherits the launcher's
    PYTHONPATH, the sanitizer build's included)."""
    import importlib.util

    if importlib.util.find_spec("_dpusim") is None or importlib.util.find_spec("dpusim") is None:
        build = os.environ.get("DPUSIM_BUILD_DIR") or os.path.join(root, "build")
        for p in (os.path.join(root, "pybind"), os.path.join(build, "python")):
            if p not in sys.path:
                sys.path.insert(0, p)
    os.environ.setdefault("DPUSIM_ROOT", root)


def serve(channel):
    config = channel.receive()
    root = config["root"]
    if not os.path.isdir(os.path.join(root, "pybind", "dpusim")):
        root = os.getcwd()  # an ssh worker's chdir= names its own checkout
    if os.environ.get("PYTHONHASHSEED") != "0":
        channel.send({"error": "the worker's PYTHONHASHSEED is not 0 (add //env:PYTHONHASHSEED=0 to its spec)"})
        return
    setup(root)
    from dpusim.outcome import run_seed
    from dpusim.sweep_identity import fingerprint

    mine = fingerprint(root, config["scenario"])
    if mine != config["fingerprint"]:
        channel.send({"error": f"the worker's checkout at {root} differs from the sweep's (package or scenario "
                               f"fingerprint {mine[:12]} != {config['fingerprint'][:12]})"})
        return
    channel.send({"ready": mine})
    path = os.path.join(root, config["scenario"])
    while True:
        seed = channel.receive()
        if seed is None:
            return
        channel.send(run_seed(path, seed, config["explore"], config["timeout"]))


if __name__ == "__channelexec__":
    serve(channel)  # noqa: F821 - execnet provides `channel`
