"""./dpusim fuzz: the libFuzzer harnesses (fuzz/fuzz_*.cpp), one per untrusted input.

    ./dpusim fuzz --list                 the harnesses, one a line
    ./dpusim fuzz TARGET [--seconds N]   build (clang, ASan+UBSan) and run one harness for N s
    ./dpusim fuzz --all [--seconds N] [-j N]   every harness, N at a time (./dpusim test's stage)
    ./dpusim fuzz [TARGET] --build       build one harness (or every one), run none
    ./dpusim fuzz TARGET --merge         fold what runs found into the kept corpus

A run starts from the corpus kept in the repository (fuzz/corpus/TARGET: where the last
merged runs' coverage was), the harness's seed and regression inputs (tests/data/fuzz/TARGET,
the project's own test data) and what earlier runs on this machine found (out/fuzz/TARGET/corpus,
where new inputs go). It prints the executions done and the coverage reached, and exits 0 when
nothing was found. A crash, leak, timeout or sanitizer report exits 1 and names the reproducer
file; turn it into a regression input under tests/data/fuzz/TARGET/ (the regression test
replays every file there and in the kept corpus). `--merge` keeps, of the kept corpus and the
local finds, the smallest set of inputs that reaches the same coverage (libFuzzer's -merge=1),
ready to commit.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.environ.get("DPUSIM_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BUILD = os.path.join(ROOT, "build-fuzz")


def targets():
    names = []
    for f in sorted(os.listdir(os.path.join(ROOT, "fuzz"))):
        m = re.fullmatch(r"fuzz_(\w+)\.cpp", f)
        if m:
            names.append(m.group(1))
    return names


def kept_corpus(target):
    """The corpus kept in the repository: fuzz/corpus/TARGET."""
    return os.path.join(ROOT, "fuzz", "corpus", target)


def seed_dirs(target):
    """The kept corpus, tests/data/fuzz/TARGET, and the folders of the harness's "// seeds:" line."""
    dirs = [kept_corpus(target), os.path.join(ROOT, "tests", "data", "fuzz", target)]
    with open(os.path.join(ROOT, "fuzz", f"fuzz_{target}.cpp")) as f:
        for line in f:
            if line.startswith("// seeds: "):
                dirs += [os.path.join(ROOT, d) for d in line.split()[2:]]
    return dirs


def build(target=None):
    """Builds one harness (or every one) in build-fuzz/, saying first what it builds: on a fresh
    clone that takes minutes, which a caller timing the fuzzing alone should see coming (and
    can take apart: `./dpusim fuzz [TARGET] --build`)."""
    env = dict(os.environ, CC="clang", CXX="clang++")
    what = f"fuzz_{target}" if target else "every fuzz harness"
    fresh = not os.path.exists(os.path.join(BUILD, "build.ninja"))
    print(f"dpusim fuzz: {'configuring ' + BUILD + ' and ' if fresh else ''}building {what} (clang, ASan+UBSan; "
          f"minutes on a fresh clone, seconds when up to date; `./dpusim fuzz {target + ' ' if target else ''}--build` "
          f"builds without fuzzing)", file=sys.stderr, flush=True)
    if fresh:
        subprocess.run(["cmake", "-S", ROOT, "-B", BUILD, "-G", "Ninja", "-DDPUSIM_FUZZ=ON",
                        "-DCMAKE_BUILD_TYPE=None"], check=True, env=env, stdout=sys.stderr)
    cmd = ["cmake", "--build", BUILD, "-j", str(os.cpu_count() or 2)]
    if target:
        cmd += ["--target", f"fuzz_{target}"]
    subprocess.run(cmd, check=True, env=env, stdout=sys.stderr)
    print(f"dpusim fuzz: {what} built", file=sys.stderr, flush=True)


ENV = dict(ASAN_OPTIONS="abort_on_error=1:detect_leaks=1", UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")


def local_corpus(target):
    corpus = os.path.join(ROOT, "out", "fuzz", target, "corpus")
    os.makedirs(corpus, exist_ok=True)
    return corpus


def start(target, seconds, max_len=65536, fork=0):
    """Starts one harness on its corpora; returns the process (its output in out/fuzz/TARGET/run.log)."""
    work = os.path.join(ROOT, "out", "fuzz", target)
    dirs = [local_corpus(target)] + [d for d in seed_dirs(target) if os.path.isdir(d)]
    cmd = [os.path.join(BUILD, "fuzz", f"fuzz_{target}"), f"-max_total_time={seconds}", "-print_final_stats=1",
           "-timeout=10", "-rss_limit_mb=2048", f"-max_len={max_len}", f"-artifact_prefix={work}/",
           *([f"-fork={fork}"] if fork else []), *dirs]
    # Its output goes to a file, not a pipe: harnesses that run side by side never wait on a
    # reader.
    log_path = os.path.join(work, "run.log")
    with open(log_path, "w") as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, **ENV))
    p.log_path = log_path
    return p


def outcome(p):
    """Waits for a harness started by start(); returns (exit code, executions, coverage, reproducer or None)."""
    p.wait()
    with open(p.log_path, errors="replace") as log:
        return parse(p.returncode, log.read())


def run(target, seconds, max_len=65536, fork=0):
    """Runs one harness; returns (exit code, executions, coverage, reproducer or None)."""
    return outcome(start(target, seconds, max_len, fork))


def parse(returncode, output):
    """(exit code, executions, coverage, reproducer or None) from a harness's output."""
    execs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", output)
    if not execs:  # fork mode reports the running total as "#N: cov: ..."
        execs = re.findall(r"^#(\d+): cov:", output, re.M)
    cov = re.findall(r"\bcov: (\d+)", output)
    repro = re.findall(r"Test unit written to (\S+)", output)
    if returncode != 0:
        sys.stderr.write(output[-6000:])
    return returncode, int(execs[-1]) if execs else 0, int(cov[-1]) if cov else 0, repro[-1] if repro else None


def report(target, seconds, result):
    """Prints a run's line; returns its exit status (0, or 1 when it found a failure)."""
    code, execs, cov, repro = result
    print(f"{target}: {execs} executions in {seconds} s, coverage {cov} edges", flush=True)
    if code != 0:
        print(f"{target}: FOUND a failure; reproducer: {repro or '(see output above)'}", flush=True)
        return 1
    return 0


def run_all(seconds, jobs, max_len):
    """Every harness, `jobs` at a time, each line printed in the harnesses' order."""
    names = targets()
    running = {}
    status = 0
    done = 0
    for i, name in enumerate(names):
        running[name] = start(name, seconds, max_len)
        # Keep at most `jobs` running: wait for the oldest (they all run for `seconds`).
        while len(running) >= jobs or (i == len(names) - 1 and running):
            oldest = names[done]
            status |= report(oldest, seconds, outcome(running.pop(oldest)))
            done += 1
    return status


def merge(target, max_len):
    """Folds the local finds into the kept corpus: the smallest set with the same coverage."""
    kept = kept_corpus(target)
    merged = tempfile.mkdtemp(prefix=f"corpus-{target}-")
    try:
        cmd = [os.path.join(BUILD, "fuzz", f"fuzz_{target}"), "-merge=1", f"-max_len={max_len}", merged,
               local_corpus(target)] + [d for d in seed_dirs(target) if os.path.isdir(d)]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=dict(os.environ, **ENV))
        if p.returncode != 0:
            sys.stderr.write(p.stdout[-6000:])
            return 1
        # Inputs already among the seeds and regression inputs stay there alone.
        seeds = set()
        for d in seed_dirs(target)[1:]:
            for root, _, files in os.walk(d):
                seeds.update(open(os.path.join(root, f), "rb").read() for f in files)
        shutil.rmtree(kept, ignore_errors=True)
        os.makedirs(kept)
        kept_n = 0
        for name in sorted(os.listdir(merged)):
            data = open(os.path.join(merged, name), "rb").read()
            if data not in seeds:
                shutil.copyfile(os.path.join(merged, name), os.path.join(kept, name))
                kept_n += 1
        print(f"{target}: the kept corpus fuzz/corpus/{target} holds {kept_n} inputs")
        return 0
    finally:
        shutil.rmtree(merged, ignore_errors=True)


def main(argv):
    parser = argparse.ArgumentParser(prog="dpusim fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("target", nargs="?", help="harness name (see --list)")
    parser.add_argument("--list", action="store_true", help="list the harnesses")
    parser.add_argument("--all", action="store_true", help="run every harness")
    parser.add_argument("--build", action="store_true", help="build the harness (every one without TARGET), run none")
    parser.add_argument("--merge", action="store_true", help="fold the local finds into the kept corpus")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="with --all: harnesses at once (default 1)")
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
    if opts.seconds < 1:
        print("dpusim fuzz: --seconds must be at least 1", file=sys.stderr)
        return 2
    if opts.jobs < 1:
        print("dpusim fuzz: -j must be at least 1", file=sys.stderr)
        return 2
    if opts.all or (opts.build and opts.target is None):
        if opts.target is not None:
            print("dpusim fuzz: --all takes no TARGET", file=sys.stderr)
            return 2
        build()
        return run_all(opts.seconds, opts.jobs, opts.max_len) if opts.all else 0
    if opts.target not in targets():
        print(f"dpusim fuzz: unknown target {opts.target!r} (known: {', '.join(targets())})", file=sys.stderr)
        return 2
    build(opts.target)
    if opts.build:
        return 0
    if opts.merge:
        return merge(opts.target, opts.max_len)
    return report(opts.target, opts.seconds, run(opts.target, opts.seconds, opts.max_len, opts.fork))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
