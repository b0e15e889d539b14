"""./dpusim p4 run --rdma WORK.json: work requests through the device's RDMA path from the command
line, with the fp8 unit by name (--fp8-impl cpp or rtl, docs/cosim.md). Expected bytes come from
the rational reference (formats_reference.py); the RTL must give the very bytes and decisions the
C++ codec gives, with its cycle count."""
import json
import pathlib
import subprocess

import pytest

import _dpusim
import formats_reference as ref
from rdma_util import sequence

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "p4"
TOOL = pathlib.Path(_dpusim.__file__).resolve().parents[1] / "p4" / "tool" / "dpusim-p4"
BASE, A, B, DST = 0x10000, 0x10000, 0x11000, 0x12000
KA, KB, KDST = 0x100, 0x200, 0x300


def tool(*args):
    return subprocess.run([str(TOOL), *map(str, args)], capture_output=True, text=True, timeout=120)


def reduce_entry(op, fmt):
    return {"type": "INSERT", "table": "ingress.rdma_policy",
            "match": [{"field": "meta.rdma_metadata.opcode", "value": "4"}],
            "action": "ingress.reduce", "params": {"op": str(op), "fmt": str(fmt)}}


def work(a, b, **extra):
    """fp8_policy's three regions, a and b filled in, and the given requests."""
    doc = {"memory": {"base": BASE, "size": 0x4000},
           "regions": [{"key": KA, "addr": A, "length": 0x1000}, {"key": KB, "addr": B, "length": 0x1000},
                       {"key": KDST, "addr": DST, "length": 0x1000}],
           "fill": [{"addr": A, "hex": a.hex()}, {"addr": B, "hex": b.hex()}],
           "work_requests": []}
    doc.update(extra)
    return doc


def reduce_wr(n, **extra):
    wr = {"opcode": 4, "qp_num": 17, "rkey": KDST, "remote_addr": DST,
          "sgl": [{"addr": A, "length": n, "lkey": KA}, {"addr": B, "length": n, "lkey": KB}]}
    wr.update(extra)
    return wr


def run(tmp_path, name, doc, entries, *options, program="fp8_policy.json"):
    (tmp_path / f"{name}.json").write_text(json.dumps(doc))
    (tmp_path / f"{name}_entries.json").write_text(json.dumps(entries))
    out = tmp_path / name
    r = tool("run", DATA / program, "--entries", tmp_path / f"{name}_entries.json", "--rdma",
             tmp_path / f"{name}.json", *options, "--out", out)
    lines = [json.loads(x) for x in (out / "rdma.jsonl").read_text().splitlines()] if r.returncode == 0 else []
    memory = (out / "memory.bin").read_bytes() if r.returncode == 0 else b""
    return r, lines, memory


def expected_add_e4m3(a, b):
    f = ref.FORMATS["fp8_e4m3"]
    return ref.pack(f, [ref.apply("add", f, x, y) for x, y in zip(ref.unpack(f, a), ref.unpack(f, b))])


def decision(wr, action, status="IBV_WC_SUCCESS", reason="none", message="", cycles=0, busy=0, time_ps=0):
    return {"wr": wr, "time_ps": time_ps, "action": action, "status": status, "reason": reason, "message": message,
            "fp8_cycles": cycles, "fp8_busy_ps": busy}


def test_work_requests_go_through_the_rdma_path_and_the_result_lands_in_memory(tmp_path):
    a, b = bytes(range(256)), bytes(reversed(range(256)))  # every e4m3 code, NaN and 448 included
    doc = work(a, b, work_requests=[
        reduce_wr(256),
        {"opcode": 0, "qp_num": 17, "sgl": [{"addr": A, "length": 16, "lkey": KA}]},        # a SEND: dispatched
        reduce_wr(16, sgl=[{"addr": A, "length": 16, "lkey": 0x999}, {"addr": B, "length": 16, "lkey": KB}],
                  time_ps=5000),
    ])
    r, lines, memory = run(tmp_path, "cpp", doc, [reduce_entry(0, 3)])
    assert r.returncode == 0, r.stderr
    assert lines == [
        decision(0, "done"),
        decision(1, "dispatch"),
        decision(2, "fail", "IBV_WC_LOC_PROT_ERR", "unregistered_key", "sge[0] lkey 0x00000999 is not registered",
                 time_ps=5000),
    ]
    assert memory[DST - BASE:DST - BASE + 256] == expected_add_e4m3(a, b)
    assert memory[DST - BASE + 256:] == bytes(0x2000 - 256)
    assert memory[:256] == a and memory[0x1000:0x1100] == b
    out = r.stdout.splitlines()
    assert out[-2] == ("RDMA stats: work_requests=3 runs=3 dispatched=1 denied=0 done=1 failed=1 declined=0 "
                       "fp8_impl=cpp fp8_cycles=0")
    assert out[-1].startswith("P4 stats: ")


def test_a_denial_is_logged_in_rdma_jsonl_at_its_time(tmp_path):
    deny = {"type": "INSERT", "table": "ingress.rdma_policy",
            "match": [{"field": "meta.rdma_metadata.opcode", "value": "0"}], "action": "ingress.deny", "params": {}}
    doc = work(b"", b"", work_requests=[{"opcode": 0, "qp_num": 9, "length": 64, "time_ps": 7}])
    r, lines, _ = run(tmp_path, "deny", doc, [deny])
    assert r.returncode == 0, r.stderr
    assert lines == [{"time_ps": 7, "log": "P4 program denied work request: qp=9 opcode=0 (SEND) length=64"},
                     decision(0, "deny", "IBV_WC_LOC_QP_OP_ERR", time_ps=7)]


@pytest.mark.parametrize("doc, message", [
    ({}, "$.memory: missing"),
    ({"memory": {"base": 0, "size": 16}, "extra": 1}, "$.extra: unknown key"),
    ({"memory": {"base": 0, "size": 1 << 30}}, "$.memory.size: 1073741824 is over the limit of 67108864"),
    ({"memory": {"base": 0, "size": 16}, "regions": [{"addr": 0, "length": 4}]}, "$.regions[0].key: missing"),
    ({"memory": {"base": 0, "size": 16}, "regions": [{"key": 1, "addr": 0, "length": 4, "owner": "mine"}]},
     '$.regions[0].owner: is not "local" or "peer"'),
    ({"memory": {"base": 0, "size": 16}, "fill": [{"addr": 8, "hex": "00" * 9}]},
     "$.fill[0]: 9 bytes at 8 are not all inside the memory window"),
    ({"memory": {"base": 0, "size": 16}, "fill": [{"addr": 0, "hex": "0g"}]}, "$.fill[0].hex: character 1 is not a hex digit"),
    ({"memory": {"base": 0, "size": 16}, "work_requests": [{"qp_num": -1}]},
     "$.work_requests[0].qp_num: is not a non-negative integer"),
    ({"memory": {"base": 0, "size": 16}, "work_requests": [{"time_ps": 5}, {"time_ps": 4}]},
     "$.work_requests[1].time_ps: 4 is before the previous request's 5"),
    ({"memory": {"base": 0, "size": 16}, "work_requests": [{"opcode": 256}]},
     "$.work_requests[0].opcode: 256 is over the limit of 255"),
])
def test_a_bad_work_document_is_refused_by_json_path(tmp_path, doc, message):
    path = tmp_path / "work.json"
    path.write_text(json.dumps(doc))
    r = tool("run", DATA / "fp8_policy.json", "--rdma", path, "--out", tmp_path / "out")
    assert r.returncode == 1
    assert r.stderr == f"{path}: {message}\n"


@pytest.mark.parametrize("options, message", [
    (["--fp8-impl", "gpu"], "fp8-impl 'gpu' is not an implementation; the implementations are cpp (the C++ codec) "
                            "and rtl (the verilated RTL unit)"),
    (["--fp8-clock-ps", "1000"], "fp8-impl cpp has no clock (the C++ codec takes no simulated time); a clock period "
                                 "applies to fp8-impl rtl"),
    (["--fp8-clock-ps", "1.5"], "--fp8-clock-ps '1.5' is not a positive whole number of picoseconds"),
    (["--fp8-clock-ps", "0"], "--fp8-clock-ps '0' is not a positive whole number of picoseconds"),
])
def test_bad_fp8_options_are_refused(tmp_path, options, message):
    r = tool("run", DATA / "fp8_policy.json", *options, "--out", tmp_path / "out")
    assert r.returncode == 2
    assert r.stderr == f"dpusim p4 run: {message}\n"


@pytest.mark.skipif(_dpusim.build_options["DPUSIM_RTL"], reason="this build has the RTL co-simulation")
def test_rtl_is_refused_with_the_reason_where_the_build_lacks_it(tmp_path):
    r = tool("run", DATA / "fp8_policy.json", "--fp8-impl", "rtl", "--out", tmp_path / "out")
    assert r.returncode == 2
    assert r.stderr == ("dpusim p4 run: fp8-impl rtl needs the RTL co-simulation, which this build lacks: it was "
                        "configured with DPUSIM_RTL=OFF (verilator missing or switched off); install verilator "
                        "(./dpusim setup) and reconfigure with -DDPUSIM_RTL=ON\n")


def needed_libraries(path):
    """The shared libraries an executable names (its ELF DT_NEEDED entries)."""
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def test_the_tool_loads_no_systemc_and_its_rtl_sibling_does():
    """dpusim-p4 links no SystemC (its start-up costs every process, p4/tool/CMakeLists.txt); where
    the build has the RTL co-simulation, dpusim-p4-rtl runs `run --fp8-impl rtl` with it."""
    assert not [lib for lib in needed_libraries(TOOL) if "systemc" in lib]
    sibling = TOOL.parent / "dpusim-p4-rtl"
    if _dpusim.build_options["DPUSIM_RTL"]:
        assert [lib for lib in needed_libraries(sibling) if lib.startswith("libsystemc")]
    else:
        assert not sibling.exists()


@pytest.mark.rtl
@pytest.mark.parametrize("op, fmt", [(0, 3), (1, 4), (2, 0), (3, 1), (4, 5), (0, 2)])
def test_the_rtl_unit_gives_the_codecs_bytes_and_decisions_with_its_cycles(tmp_path, op, fmt):
    a, b = sequence(1000, op * 7 + fmt), sequence(1000, 50 + op * 7 + fmt)
    doc = work(a, b, work_requests=[reduce_wr(1000), reduce_wr(24, time_ps=10**6)])
    r_cpp, cpp, mem_cpp = run(tmp_path, "cpp", doc, [reduce_entry(op, fmt)])
    r_rtl, rtl, mem_rtl = run(tmp_path, "rtl", doc, [reduce_entry(op, fmt)], "--fp8-impl", "rtl",
                              "--fp8-clock-ps", "1250")
    assert r_cpp.returncode == 0 and r_rtl.returncode == 0, r_cpp.stderr + r_rtl.stderr
    assert mem_rtl == mem_cpp
    bits = [32, 16, 16, 8, 8, 4][fmt]
    for i, n in enumerate([1000, 24]):
        cycles = -(-(n * 8 // bits) // 4) + 5  # ceil(elements / 4 lanes) + 5 pipeline stages
        assert cpp[i] == decision(i, "done", time_ps=[0, 10**6][i])
        assert rtl[i] == decision(i, "done", cycles=cycles, busy=cycles * 1250, time_ps=[0, 10**6][i])
    assert r_rtl.stdout.splitlines()[-2].endswith(f"fp8_impl=rtl fp8_cycles={rtl[0]['fp8_cycles'] + rtl[1]['fp8_cycles']}")


@pytest.mark.rtl
def test_conversions_through_the_rtl_unit_match_the_reference(tmp_path):
    """fp8_convert narrows fp32 to fp8_e4m3 for QP 17 and widens fp8_e5m2 to fp16 for QP 18."""
    narrow = b"".join(ref.pack(ref.FORMATS["fp32"], [c]) for c in
                      [0x3F800000, 0x3F880000, 0x3F980000, 0x43E00000, 0x43E80000, 0x4E6E6B28, 0x00000000, 0x80000000,
                       0x3B000000, 0x3A800000, 0xC0600000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x00000001])
    widen = bytes(range(256))
    entries = [{"type": "INSERT", "table": "ingress.convert_policy",
                "match": [{"field": "meta.rdma_metadata.opcode", "value": "4"},
                          {"field": "meta.rdma_metadata.qp_num", "value": str(qp)}],
                "action": "ingress.convert", "params": {"src_fmt": str(s), "dst_fmt": str(d)}}
               for qp, s, d in [(17, 0, 3), (18, 4, 1)]]
    doc = work(narrow, widen, work_requests=[
        {"opcode": 4, "qp_num": 17, "rkey": KDST, "remote_addr": DST, "sgl": [{"addr": A, "length": 64, "lkey": KA}]},
        {"opcode": 4, "qp_num": 18, "rkey": KDST, "remote_addr": DST + 0x100,
         "sgl": [{"addr": B, "length": 256, "lkey": KB}]}])
    r, lines, memory = run(tmp_path, "rtl", doc, entries, "--fp8-impl", "rtl", program="fp8_convert.json")
    assert r.returncode == 0, r.stderr
    assert [(x["action"], x["fp8_cycles"], x["fp8_busy_ps"]) for x in lines] == [("done", 9, 9000), ("done", 69, 69000)]
    e4m3, e5m2, fp16 = ref.FORMATS["fp8_e4m3"], ref.FORMATS["fp8_e5m2"], ref.FORMATS["fp16"]
    fp32 = ref.FORMATS["fp32"]
    assert memory[DST - BASE:DST - BASE + 16] == ref.pack(
        e4m3, [ref.encode_value(e4m3, ref.decode(fp32, c)) for c in ref.unpack(fp32, narrow)])
    assert memory[DST - BASE + 0x100:DST - BASE + 0x300] == ref.pack(
        fp16, [ref.encode_value(fp16, ref.decode(e5m2, c)) for c in range(256)])
