"""./dpusim fuzz: the libFuzzer harnesses (fuzz/fuzz_*.cpp), one per untrusted input.

    ./dpusim fuzz --list                 the harnesses, one a line
    ./dpusim fuzz TARGET [--seconds N]   build (clang, ASan+UBSan) and run one harness for N s

A run starts from the harness's seed corpus (tests/data/fuzz/TARGET, the project's own test
data) plus what earlier runs found (out/fuzz/TARGET/corpus), prints the executions done and
the coverage reached, and exits 0 when nothing was found. A crash, leak, timeout or sanitizer
report exits 1 and names the reproducer file; turn it into a regression input under
tests/data/fuzz/TARGET/ (the regression test replays every file there).
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.environ.get("DPUSIM_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BUILD = os.path.join(ROOT, "build-fuzz")


def targets():
    names = []
    for f in sorted(os.listdir(os.path.join(ROOT, "fuzz"))):
        m = re.fullmatch(r"fuzz_(\w+)\.cpp", f)
        if m:
            names.append(m.group(1))
    return names


def seed_dirs(target):
    """tests/data/fuzz/TARGET, plus the folders of the harness's "// seeds:" line."""
    dirs = [os.path.join(ROOT, "tests", "data", "fuzz", target)]
    with open(os.path.join(ROOT, "fuzz", f"fuzz_{target}.cpp")) as f:
        for line in f:
            if line.startswith("// seeds: "):
                dirs += [os.path.join(ROOT, d) for d in line.split()[2:]]
    return dirs


def build(target=None):
    env = dict(os.environ, CC="clang", CXX="clang++")
    if not os.path.exists(os.path.join(BUILD, "build.ninja")):
        subprocess.run(["cmake", "-S", ROOT, "-B", BUILD, "-G", "Ninja", "-DDPUSIM_FUZZ=ON",
                        "-DCMAKE_BUILD_TYPE=None"], check=True, env=env, stdout=sys.stderr)
    cmd = ["cmake", "--build", BUILD, "-j", str(os.cpu_count() or 2)]
    if target:
        cmd += ["--target", f"fuzz_{target}"]
    subprocess.run(cmd, check=True, env=env, stdout=sys.stderr)


def run(target, seconds, max_len=65536, fork=0):
    """Runs one harness; returns (exit code, executions, coverage, reproducer or None)."""
    work = os.path.join(ROOT, "out", "fuzz", target)
    corpus = os.path.join(work, "corpus")
    os.makedirs(corpus, exist_ok=True)
    dirs = [corpus] + [d for d in seed_dirs(target) if os.path.isdir(d)]
    cmd = [os.path.join(BUILD, "fuzz", f"fuzz_{target}"), f"-max_total_time={seconds}", "-print_final_stats=1",
           "-timeout=10", "-rss_limit_mb=2048", f"-max_len={max_len}", f"-artifact_prefix={work}/",
           *([f"-fork={fork}"] if fork else []), *dirs]
    env = dict(os.environ, ASAN_OPTIONS="abort_on_error=1:detect_leaks=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    execs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", p.stdout)
    if not execs:  # fork mode reports the running total as "#N: cov: ..."
        execs = re.findall(r"^#(\d+): cov:", p.stdout, re.M)
    cov = re.findall(r"\bcov: (\d+)", p.stdout)
    repro = re.findall(r"Test unit written to (\S+)", p.stdout)
    if p.returncode != 0:
        sys.stderr.write(p.stdout[-6000:])
    return p.returncode, int(execs[-1]) if execs else 0, int(cov[-1]) if cov else 0, repro[-1] if repro else None


def main(argv):
    parser = argparse.ArgumentParser(prog="dpusim fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("target", nargs="?", help="harness name (see --list)")
    parser.add_argument("--list", action="store_true", help="list the harnesses")
    parser.add_argument("--seconds", type=int, default=60, help="how long to fuzz (default 60)")
    parser.add_argument("--max-len", type=int, default=65536, help="largest input in bytes (default 65536)")
    parser.add_argument("--fork", type=int, default=0, help="run N fuzzing processes (libFuzzer -fork)")
    try:
        opts = parser.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    if opts.list:
        print("\n".join(targets()))
        return 0
    if opts.target not in targets():
        print(f"dpusim fuzz: unknown target {opts.target!r} (known: {', '.join(targets())})", file=sys.stderr)
        return 2
    if opts.seconds < 1:
        print("dpusim fuzz: --seconds must be at least 1", file=sys.stderr)
        return 2
    build(opts.target)
    code, execs, cov, repro = run(opts.target, opts.seconds, opts.max_len, opts.fork)
    print(f"{opts.target}: {execs} executions in {opts.seconds} s, coverage {cov} edges")
    if code != 0:
        print(f"{opts.target}: FOUND a failure; reproducer: {repro or '(see output above)'}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
