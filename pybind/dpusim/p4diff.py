"""Differential testing of the P4 engine against bmv2's simple_switch (docs/p4.md, "Parity").

    ./dpusim python -m dpusim.p4diff --ss PATH/simple_switch [--programs DIR] [--frames N]
                                     [--seed S] [--only SUBSTRING] [--keep DIR]

For each bmv2 JSON program in DIR (by default the p4c STF programs beside the checkout), N frames
(half of them the program's own STF packets with random bytes changed, half random bytes of random
length; the same for a seed) go into port 0 of `dpusim p4 switch` and of simple_switch, both with
eight file ports (`-i 0@p0 ... -i 7@p7 --use-files`), and the two switches' outputs are compared
port by port, frame by frame. No table entries are added: the programs run their default actions,
which still takes every frame through the parser, the controls' arithmetic, the checksums and the
deparser. At most 60 frames go in at a time, fewer than simple_switch's 64-frame egress queues
hold, so it never drops one for lack of room.

simple_switch is built by the user from bmv2's public source (behavioral-model), outside the
repository; this module only runs it. A program whose JSON uses a source of nondeterminism
(`random`, timestamps, queueing metadata, a register both pipelines touch) is reported as such,
not as a difference.
"""
import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.environ.get("DPUSIM_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PORTS = 8
MAX_FRAMES = 60  # below simple_switch's default egress queue depth (64 frames)
# What makes simple_switch's output depend on its threads or the host's clock: the random
# primitive, and reads of the time and queueing fields (every v1model program declares these
# fields and aliases them, which is no use of them: reads_time() leaves those sections out).
NONDETERMINISTIC = ('"op": "random"', '"ingress_global_timestamp"]', '"egress_global_timestamp"]',
                    '"enq_timestamp"]', '"deq_timedelta"]', '"enq_qdepth"]', '"deq_qdepth"]')


def reads_time(program):
    """True if the program uses randomness, timestamps or queue depths."""
    with open(program) as f:
        data = json.load(f)
    for key in ("header_types", "field_aliases"):
        data.pop(key, None)
    text = json.dumps(data)
    return any(k in text for k in NONDETERMINISTIC)


def shared_state(program):
    """The register arrays that actions of both the ingress and the egress pipeline touch:
    simple_switch runs the two on threads of their own, so one packet's egress may read such a
    register before or after the next packet's ingress wrote it; dpusim runs each packet
    through both before the next."""
    with open(program) as f:
        data = json.load(f)
    by_id = {a["id"]: a for a in data.get("actions", [])}
    used = []
    for pipeline in data.get("pipelines", [])[:2]:
        regs = set()
        for table in pipeline.get("tables", []):
            for action_id in table.get("action_ids", []):
                for prim in by_id.get(action_id, {}).get("primitives", []):
                    regs.update(p["value"] for p in prim.get("parameters", []) if p.get("type") == "register_array")
        used.append(regs)
    return sorted(used[0] & used[1]) if len(used) == 2 else []


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, frame in enumerate(frames):
            f.write(struct.pack("<IIII", 1, i, len(frame), len(frame)))
            f.write(frame)


def read_pcap(path):
    """The records' bytes; [] for a missing or empty file (simple_switch writes its header with
    its first frame). A record cut short (a switch stopped while writing) ends the list."""
    try:
        data = open(path, "rb").read()
    except OSError:
        return []
    if len(data) < 24:
        return []
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, pos = [], 24
    while pos + 16 <= len(data):
        caplen = struct.unpack_from(endian + "I", data, pos + 8)[0]
        if pos + 16 + caplen > len(data):
            break
        out.append(data[pos + 16:pos + 16 + caplen])
        pos += 16 + caplen
    return out


def stf_packets(stf):
    """The frames of an STF file's `packet PORT HEX` lines."""
    frames = []
    try:
        lines = open(stf).read().splitlines()
    except OSError:
        return frames
    for line in lines:
        words = line.split("#")[0].split()
        if len(words) >= 3 and words[0] == "packet":
            text = "".join(words[2:])
            try:
                frames.append(bytes.fromhex(text))
            except ValueError:
                pass
    return frames


def frames_for(program, n, seed):
    """`n` frames for `program`: its STF packets with 1 to 4 bytes changed after the Ethernet
    addresses, and random frames of 14 to 300 bytes."""
    rng = random.Random(f"{seed}:{os.path.basename(program)}")
    seeds = [f for f in stf_packets(program[:-5] + ".stf") if len(f) >= 14]
    frames = []
    for i in range(n):
        if seeds and i % 2 == 0:
            f = bytearray(rng.choice(seeds))
            for _ in range(rng.randint(1, 4)):
                if len(f) > 12:
                    f[rng.randrange(12, len(f))] = rng.randrange(256)
            frames.append(bytes(f))
        else:
            frames.append(bytes(rng.randrange(256) for _ in range(rng.randint(14, 300))))
    return frames


def ports_args():
    args = []
    for p in range(PORTS):
        args += ["-i", f"{p}@p{p}"]
    return args


def run_dpusim(p4, program, folder):
    r = subprocess.run([p4, "switch", program, *ports_args(), "--use-files"], cwd=folder, capture_output=True,
                       text=True, timeout=120)
    if r.returncode != 0:
        return None, (r.stderr or r.stdout).strip().splitlines()[-1:] or ["exit status %d" % r.returncode]
    return [read_pcap(os.path.join(folder, f"p{p}_out.pcap")) for p in range(PORTS)], None


def run_ss(ss, program, folder, expected_bytes, port):
    """simple_switch until its outputs have as many bytes as dpusim's and stop growing, or stop
    growing for 3 s (wall time: this drives a process, it simulates nothing)."""
    log = open(os.path.join(folder, "ss.log"), "w")
    proc = subprocess.Popen([ss, "--use-files", "0", "--thrift-port", str(port), *ports_args(), program], cwd=folder,
                            stdout=log, stderr=subprocess.STDOUT)
    paths = [os.path.join(folder, f"p{p}_out.pcap") for p in range(PORTS)]
    start = last_change = time.monotonic()
    seen = -1
    try:
        while True:
            time.sleep(0.05)
            size = sum(os.path.getsize(p) for p in paths if os.path.exists(p))
            now = time.monotonic()
            if size != seen:
                seen, last_change = size, now
            if proc.poll() is not None:
                return None, f"simple_switch exited with {proc.returncode}: " + open(log.name).read()[-300:]
            if size >= expected_bytes and now - last_change > 0.5:
                break
            if now - start > 2 and now - last_change > 3:
                break
    finally:
        proc.kill()
        proc.wait()
        log.close()
    return [read_pcap(p) for p in paths], None


def first_difference(ours, theirs):
    for port in range(PORTS):
        a, b = ours[port], theirs[port]
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                at = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), min(len(x), len(y)))
                return (f"port {port} frame {i + 1}: dpusim {len(x)} bytes, simple_switch {len(y)}, "
                        f"first different byte {at}")
        if len(a) != len(b):
            return f"port {port}: dpusim wrote {len(a)} frames, simple_switch {len(b)}"
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="dpusim.p4diff", description=__doc__.splitlines()[0])
    ap.add_argument("--ss", required=True, help="bmv2's simple_switch executable")
    ap.add_argument("--programs", default=os.path.join(os.path.dirname(ROOT), "shared", "p4-stf"),
                    help="a folder of bmv2 JSON programs (STF files beside them seed the frames)")
    ap.add_argument("--frames", type=int, default=MAX_FRAMES)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="programs whose file name contains this")
    ap.add_argument("--keep", default="", help="keep each program's captures in this folder")
    ap.add_argument("--thrift-port", type=int, default=9300)
    args = ap.parse_args(argv)
    if not 1 <= args.frames <= MAX_FRAMES:
        ap.error(f"--frames {args.frames}: 1 to {MAX_FRAMES} (simple_switch's egress queues hold 64 frames)")
    if not os.access(args.ss, os.X_OK):
        ap.error(f"--ss {args.ss}: not an executable file")
    if not os.path.isdir(args.programs):
        ap.error(f"--programs {args.programs}: not a folder")
    p4 = os.path.join(os.environ.get("DPUSIM_BUILD_DIR") or os.path.join(ROOT, "build"), "p4", "tool", "dpusim-p4")
    programs = sorted(f for f in os.listdir(args.programs) if f.endswith(".json") and args.only in f)
    counts = {"same": 0, "differ": 0, "reordered": 0, "nondeterministic": 0, "refused": 0, "simple_switch failed": 0}
    for name in programs:
        program = os.path.join(args.programs, name)
        folder = tempfile.mkdtemp(prefix="dpusim-p4diff-")
        try:
            frames = frames_for(program, args.frames, args.seed)
            for side in ("dpusim", "ss"):
                os.makedirs(os.path.join(folder, side))
                for p in range(PORTS):
                    write_pcap(os.path.join(folder, side, f"p{p}_in.pcap"), frames if p == 0 else [])
            ours, why = run_dpusim(p4, program, os.path.join(folder, "dpusim"))
            if ours is None:
                counts["refused"] += 1
                print(f"{name}: dpusim refuses it: {why[0]}")
                continue
            expected = sum(os.path.getsize(os.path.join(folder, "dpusim", f"p{p}_out.pcap")) for p in range(PORTS))
            theirs, why = run_ss(args.ss, program, os.path.join(folder, "ss"), expected, args.thrift_port)
            if theirs is None:
                counts["simple_switch failed"] += 1
                print(f"{name}: {why}")
                continue
            diff = first_difference(ours, theirs)
            if diff and all(sorted(a) == sorted(b) for a, b in zip(ours, theirs)):
                counts["reordered"] += 1
                print(f"{name}: the same frames on every port, in another order (simple_switch's threads order "
                      f"clones, resubmits and recirculations as they run): {diff}")
            elif diff and reads_time(program):
                counts["nondeterministic"] += 1
                print(f"{name}: differs, and the program reads randomness or time: {diff}")
            elif diff and shared_state(program):
                counts["nondeterministic"] += 1
                print(f"{name}: differs, and ingress and egress share register {', '.join(shared_state(program))}, "
                      f"whose order simple_switch's threads decide: {diff}")
            elif diff:
                counts["differ"] += 1
                print(f"{name}: DIFFERS: {diff}")
            else:
                counts["same"] += 1
                print(f"{name}: same ({sum(map(len, ours))} frames out of {len(frames)})")
        finally:
            if args.keep:
                shutil.copytree(folder, os.path.join(args.keep, name[:-5]), dirs_exist_ok=True)
            shutil.rmtree(folder, ignore_errors=True)
        sys.stdout.flush()
    print("p4diff: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + f" (of {len(programs)}; seed {args.seed}, "
          f"{args.frames} frames each)")
    return 1 if counts["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
