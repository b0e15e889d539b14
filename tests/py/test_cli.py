"""./dpusim run: outputs, the hash line last, exit statuses."""
import hashlib
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAUNCHER = os.path.join(ROOT, "dpusim")


def dpusim(*args, cwd=None):
    p = subprocess.run([LAUNCHER, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=300)
    return p.returncode, p.stdout.splitlines()


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


OK = """
PLATFORM = {"topology": {"endpoints": 1}}
async def scenario(sim):
    print("probing")
    cpl = await sim.host.config_read("00:00.0", 0)
    assert cpl.ok
"""

FAILS = """
PLATFORM = {"topology": {"endpoints": 1}}
async def scenario(sim):
    await sim.host.config_read("00:00.0", 0)
    raise RuntimeError("the driver gave up")
"""


def test_run_writes_outputs_and_ends_with_the_hash_of_the_log(tmp_path):
    scen = write(tmp_path, "probe.py", OK)
    code, lines = dpusim("run", scen, "--out", str(tmp_path / "a"))
    assert code == 0
    assert lines[0] == "probing"
    assert lines[-1].startswith("hash: ") and len(lines[-1]) == 6 + 64
    log = (tmp_path / "a" / "events.jsonl").read_bytes()
    assert lines[-1] == "hash: " + hashlib.sha256(log).hexdigest()
    assert (tmp_path / "a" / "waves.vcd").exists()
    # The hash does not depend on where the outputs go, nor on --seed being given explicitly.
    code, lines2 = dpusim("run", scen, "--out", str(tmp_path / "elsewhere" / "b"), "--seed", "1")
    assert code == 0 and lines2[-1] == lines[-1]
    code, lines3 = dpusim("run", scen, "--out", str(tmp_path / "c"), "--seed", "2")
    assert lines3[-1] != lines[-1]
    first = json.loads((tmp_path / "c" / "events.jsonl").read_text().splitlines()[0])
    assert first["seed"] == 2


def test_default_output_directory_is_out_slash_scenario_name(tmp_path):
    scen = write(tmp_path, "probe.py", OK)
    code, lines = dpusim("run", scen, cwd=tmp_path)
    assert code == 0
    assert (tmp_path / "out" / "probe" / "events.jsonl").exists()


def test_a_failing_scenario_exits_1_and_still_prints_the_hash_last(tmp_path):
    scen = write(tmp_path, "fails.py", FAILS)
    code, lines = dpusim("run", scen, "--out", str(tmp_path / "f"))
    assert code == 1
    assert any("RuntimeError: the driver gave up" in l for l in lines)
    assert lines[-1].startswith("hash: ")


def test_an_invariant_failure_exits_1_with_a_replay_command(tmp_path):
    scen = write(tmp_path, "bad.py", """
PLATFORM = {"topology": {"endpoints": 1}}
async def scenario(sim):
    await sim.host.send_tlp("CfgRd1", target="00:00.0", reg=0, first_be=0xF)
""")
    code, lines = dpusim("run", scen, "--out", str(tmp_path / "v"), "--seed", "5")
    assert code == 1
    assert any("invariant type1_below_target_bus violated" in l for l in lines)
    assert any(l.endswith(f"replay with: ./dpusim run {scen} --seed 5") for l in lines)
    assert lines[-1].startswith("hash: ")


def test_usage_errors_and_refused_documents_exit_2(tmp_path):
    code, lines = dpusim("run", str(tmp_path / "missing.py"))
    assert code == 2 and "does not exist" in lines[-1]
    code, _ = dpusim("run")
    assert code == 2
    scen = write(tmp_path, "probe.py", OK)
    doc = write(tmp_path, "bad.json", json.dumps({"topology": {"endpoints": 40}}))
    code, lines = dpusim("run", scen, "--platform", doc, "--out", str(tmp_path / "x"))
    assert code == 2
    assert lines[-1] == "dpusim: platform document refused: $.topology.endpoints: 40 outside 1..32"


def test_python_command_keeps_cwd_stdin_and_exit_status(tmp_path):
    p = subprocess.run([LAUNCHER, "python", "-c",
                        "import os, sys, dpusim; print(os.getcwd()); print(sys.stdin.read()); sys.exit(7)"],
                       cwd=tmp_path, input="from stdin", stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True, timeout=300)
    assert p.returncode == 7
    assert p.stdout.splitlines() == [str(tmp_path), "from stdin"]


def test_run_prints_only_its_own_output_not_the_build(tmp_path):
    # The launcher builds quietly (build/build.log): stdout and stderr hold the scenario's lines.
    code, lines = dpusim("run", write(tmp_path, "ok.py", OK), "--out", str(tmp_path / "out"))
    assert code == 0
    assert lines[0] == "probing"
    assert not [l for l in lines if "ninja" in l or l.startswith("[")]


def test_bench_help_lists_the_benchmarks():
    code, lines = dpusim("bench", "--help")
    assert code == 0
    assert lines[0].startswith("usage: ./dpusim bench NAME")
    assert "fabric" in lines[1].split() and "formats" in lines[1].split()
    code, lines = dpusim("bench", "no_such_bench")
    assert code == 2
    names = " ".join(sorted(f[:-3] for f in os.listdir(os.path.join(ROOT, "bench")) if f.endswith(".py")))
    assert lines == [f"dpusim: no benchmark 'no_such_bench' (benchmarks: {names})"]
    code, lines = dpusim("bench", "fabric", "--help")
    assert code == 0 and lines[0].startswith("Fabric benchmark")
