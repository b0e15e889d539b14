"""The RDMA path from Python (docs/rdma.md): the worked examples' arithmetic, exact against the
rational reference of tests/py/formats_reference.py (never against the path's own output),
in-place operations through two keys over one buffer (a conversion within one chunk), every decline and failure rule,
and the denial log's rate limit with its exact lines and times."""
import pytest

import formats_reference as ref
from dpusim import rdma
from rdma_util import (A, A_ADDR, B, B_ADDR, DST, DST_ADDR, Log, memory, program, reduce_entry,
                       sequence, write)

FORMATS = ["fp32", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "fp4_e2m1"]
OPS = ["add", "sub", "mul", "min", "max"]
SECOND = 10**12


def expected_apply(op, fmt, a, b):
    f = ref.FORMATS[fmt]
    return ref.pack(f, [ref.apply(op, f, x, y) for x, y in zip(ref.unpack(f, a), ref.unpack(f, b))])


def expected_convert(src, dst, data):
    s, d = ref.FORMATS[src], ref.FORMATS[dst]
    return ref.pack(d, [ref.encode_value(d, ref.decode(s, c)) for c in ref.unpack(s, data)])


@pytest.fixture
def policy():
    engine = program("fp8_policy.json")
    log = Log()
    return engine, memory(), rdma.RdmaPath(engine, log=log), log


def test_the_worked_example_turns_an_rdma_write_into_an_fp8_add(policy):
    engine, mem, path, _ = policy
    reduce_entry(engine, 0, 3)
    a, b = bytes(range(256)), bytes(reversed(range(256)))  # every e4m3 code, NaN and 448 included
    mem.write(A_ADDR, a)
    mem.write(B_ADDR, b)
    d = path.post_send(write(DST, DST_ADDR, (A_ADDR, 256, A), (B_ADDR, 256, B)), 0, mem)
    assert d == rdma.Decision("done", rdma.IBV_WC_SUCCESS, "IBV_WC_SUCCESS")
    assert mem.read(DST_ADDR, 256) == expected_apply("add", "fp8_e4m3", a, b)
    assert mem.read(DST_ADDR + 256, 16) == bytes(16)  # nothing past the result


@pytest.mark.parametrize("fmt", range(6))
@pytest.mark.parametrize("op", range(5))
def test_changing_the_one_entry_changes_the_arithmetic(policy, op, fmt):
    engine, mem, path, _ = policy
    reduce_entry(engine, 4, 4)  # max, e5m2 first, then the entry under test
    reduce_entry(engine, op, fmt, modify=True)
    a, b = sequence(64, op * 10 + fmt), sequence(64, 99 + op * 10 + fmt)
    mem.write(A_ADDR, a)
    mem.write(B_ADDR, b)
    assert path.post_send(write(DST, DST_ADDR, (A_ADDR, 64, A), (B_ADDR, 64, B)), 0, mem).action == "done"
    assert mem.read(DST_ADDR, 64) == expected_apply(OPS[op], FORMATS[fmt], a, b)


def test_in_place_reduction_through_two_keys_aliasing_one_buffer_is_exact(policy):
    engine, mem, path, _ = policy
    mem.register(0x700, A_ADDR, 0x1000)  # a second key over a's bytes
    reduce_entry(engine, 0, 1)  # add, fp16
    a, b = sequence(512, 1), sequence(512, 2)
    mem.write(A_ADDR, a)
    mem.write(B_ADDR, b)
    d = path.post_send(write(0x700, A_ADDR, (A_ADDR, 512, A), (B_ADDR, 512, B)), 0, mem)
    assert d.action == "done", d.message
    assert mem.read(A_ADDR, 512) == expected_apply("add", "fp16", a, b)
    assert mem.read(B_ADDR, 512) == b


@pytest.mark.parametrize("src,dst", [("fp16", "fp32"), ("fp8_e4m3", "fp32"), ("fp4_e2m1", "bf16"),
                                     ("fp32", "fp8_e5m2"), ("bf16", "fp4_e2m1")])
def test_in_place_conversion_within_one_chunk_through_two_keys_aliasing_one_buffer_is_exact(src, dst):
    engine = program("fp8_convert.json")
    engine.insert("ingress.convert_policy", [{"field": "meta.rdma_metadata.opcode", "value": 4},
                                             {"field": "meta.rdma_metadata.qp_num", "value": 17}],
                  "ingress.convert", {"src_fmt": FORMATS.index(src), "dst_fmt": FORMATS.index(dst)})
    mem = rdma.Memory(0x10000, 0x2000)
    mem.register(1, 0x10000, 0x2000)
    mem.register(2, 0x10000, 0x2000)  # the same bytes, as the destination
    data = sequence(256, 5)
    mem.write(0x10000, data)
    before = mem.read(0x10000, 0x2000)
    d = rdma.RdmaPath(engine).post_send(write(2, 0x10000, (0x10000, 256, 1)), 0, mem)
    assert d.action == "done", d.message
    want = expected_convert(src, dst, data)
    assert mem.read(0x10000, 0x2000) == want + before[len(want):]


def test_fp8_convert_narrows_for_one_qp_and_widens_for_another():
    engine = program("fp8_convert.json")
    for qp, src, dst in ((17, 0, 3), (18, 4, 1)):
        engine.insert("ingress.convert_policy", [{"field": "meta.rdma_metadata.opcode", "value": 4},
                                                 {"field": "meta.rdma_metadata.qp_num", "value": qp}],
                      "ingress.convert", {"src_fmt": src, "dst_fmt": dst})
    mem, path = memory(), rdma.RdmaPath(engine)
    fp32 = sequence(400, 3)
    mem.write(A_ADDR, fp32)
    assert path.post_send(write(DST, DST_ADDR, (A_ADDR, 400, A), qp=17), 0, mem).action == "done"
    assert mem.read(DST_ADDR, 100) == expected_convert("fp32", "fp8_e4m3", fp32)
    e5m2 = bytes(range(256))
    mem.write(B_ADDR, e5m2)
    assert path.post_send(write(DST, DST_ADDR + 0x200, (B_ADDR, 256, B), qp=18), 0, mem).action == "done"
    assert mem.read(DST_ADDR + 0x200, 512) == expected_convert("fp8_e5m2", "fp16", e5m2)
    assert path.post_send(write(DST, DST_ADDR, (A_ADDR, 4, A), qp=19), 0, mem).action == "dispatch"


def test_a_request_not_of_the_compute_shape_is_declined_and_dispatches(policy):
    engine, mem, path, log = policy
    reduce_entry(engine, 0, 3)
    before = mem.read(0x10000, 0x4000)
    for wr in (write(DST, DST_ADDR, (A_ADDR, 16, A)),                                   # one SGE
               write(DST, DST_ADDR, (A_ADDR, 16, A), (B_ADDR, 8, B)),                   # unequal
               write(DST, DST_ADDR, (A_ADDR, 8, A), (B_ADDR, 8, B), (B_ADDR, 8, B))):   # three
        assert path.post_send(wr, 0, mem) == rdma.Decision("dispatch", 0, "IBV_WC_SUCCESS")
    assert mem.read(0x10000, 0x4000) == before
    assert path.stats["declined"] == 3 and log.lines == []


def _mark_to_drop_first(doc):
    prims = doc["actions"][1]["primitives"]
    prims.insert(0, prims.pop())


def test_a_decline_after_mark_to_drop_is_a_denial():
    engine = program("fp8_policy.json", _mark_to_drop_first)
    reduce_entry(engine, 0, 3)
    mem, log = memory(), Log()
    d = rdma.RdmaPath(engine, log=log).post_send(write(DST, DST_ADDR, (A_ADDR, 16, A)), 3, mem)
    assert d == rdma.Decision("deny", rdma.IBV_WC_LOC_QP_OP_ERR, "IBV_WC_LOC_QP_OP_ERR")
    assert d.completes(signaled=False)
    assert log.lines == [(3, "P4 program denied work request: qp=17 opcode=4 (RDMA_WRITE) length=16")]


def _no_mark_to_drop(doc):
    doc["actions"][1]["primitives"].pop()


def _peer(mem):
    mem.register(0x600, 0x900000, 0x1000, owner="peer")


def _no_remote_write(mem):
    mem.deregister(DST)
    mem.register(DST, DST_ADDR, 0x1000, access=rdma.IB_ACCESS_LOCAL_WRITE)


OVER = rdma.MAX_OPERAND_BYTES + 1
FAILURES = [
    # name, program edit, memory edit, work request, status, reason, words
    ("unregistered lkey", None, None, write(DST, DST_ADDR, (A_ADDR, 16, 0x999), (B_ADDR, 16, B)),
     "IBV_WC_LOC_PROT_ERR", "unregistered_key", "sge[0] lkey 0x00000999 is not registered"),
    ("unregistered rkey", None, None, write(0x999, DST_ADDR, (A_ADDR, 16, A), (B_ADDR, 16, B)),
     "IBV_WC_LOC_PROT_ERR", "unregistered_key", "rkey 0x00000999 (the destination) is not registered"),
    ("source outside its region", None, None, write(DST, DST_ADDR, (A_ADDR, 16, A), (B_ADDR + 0xff9, 16, B)),
     "IBV_WC_LOC_PROT_ERR", "out_of_region", "sge[1] lkey 0x00000200 range [0x11ff9, +16) is outside its region"),
    ("destination outside its region", None, None, write(DST, DST_ADDR - 1, (A_ADDR, 16, A), (B_ADDR, 16, B)),
     "IBV_WC_LOC_PROT_ERR", "out_of_region", "rkey 0x00000300 range [0x11fff, +16) (the result)"),
    ("destination without remote write", None, _no_remote_write, write(DST, DST_ADDR, (A_ADDR, 16, A), (B_ADDR, 16, B)),
     "IBV_WC_LOC_PROT_ERR", "no_remote_write", "without IB_ACCESS_REMOTE_WRITE"),
    ("a peer's lkey", None, _peer, write(DST, DST_ADDR, (0x900000, 16, 0x600), (B_ADDR, 16, B)),
     "IBV_WC_LOC_PROT_ERR", "not_local_key", "sge[0] lkey 0x00000600 belongs to a peer node"),
    ("operand over the ceiling", None, None, write(DST, DST_ADDR, (A_ADDR, OVER, A), (B_ADDR, OVER, B)),
     "IBV_WC_LOC_LEN_ERR", "operand_too_long", "length 1048577 is over the fp8 unit's operand ceiling of 1048576 bytes"),
    ("a peer's rkey", None, _peer, write(0x600, 0x900000, (A_ADDR, 16, A), (B_ADDR, 16, B)),
     "IBV_WC_LOC_QP_OP_ERR", "peer_rkey", "rkey 0x00000600 belongs to a peer node"),
    ("extern call without mark_to_drop", _no_mark_to_drop, None, write(DST, DST_ADDR, (A_ADDR, 16, A), (B_ADDR, 16, B)),
     "IBV_WC_LOC_QP_OP_ERR", "no_mark_to_drop", "did not mark_to_drop the work request; nothing was written"),
    ("qp number wider than 24 bits", None, None, write(DST, DST_ADDR, (A_ADDR, 16, A), (B_ADDR, 16, B), qp=1 << 24),
     "IBV_WC_LOC_QP_OP_ERR", "bad_qp_num", "wider than rdma_metadata.qp_num's 24 bits"),
]


@pytest.mark.parametrize("name,edit,mem_edit,wr,status,reason,words", FAILURES, ids=[f[0] for f in FAILURES])
def test_a_compute_shaped_but_bad_request_fails_and_writes_nothing(name, edit, mem_edit, wr, status, reason, words):
    engine = program("fp8_policy.json", edit)
    reduce_entry(engine, 0, 3)
    mem = memory()
    if mem_edit is not None:
        mem_edit(mem)
    mem.write(0x10000, sequence(0x4000, 7))
    before = mem.read(0x10000, 0x4000)
    d = rdma.RdmaPath(engine).post_send(wr, 0, mem)
    assert (d.action, d.status_name, d.reason) == ("fail", status, reason), d.message
    assert d.status == getattr(rdma, status)
    assert words in d.message
    assert d.completes(signaled=False)
    assert mem.read(0x10000, 0x4000) == before


def test_denials_are_logged_ten_lines_a_window_then_a_count(policy):
    engine, mem, path, log = policy
    engine.insert("ingress.rdma_policy", [{"field": "meta.rdma_metadata.opcode", "value": 0}], "ingress.deny")
    send = rdma.SendWr(rdma.IONIC_V1_OP_SEND, qp_num=9, sgl=[rdma.Sge(A_ADDR, 32, A)])
    line = "P4 program denied work request: qp=9 opcode=0 (SEND) length=32"
    for i in range(25):  # 25 denials in the first second
        assert path.post_send(send, 2 * SECOND + i, mem).action == "deny"
    assert log.lines == [(2 * SECOND + i, line) for i in range(10)]
    assert path.denial_window_end_ps() == 7 * SECOND
    # Not a denial, but the first request after the window ends: the count comes out then.
    path.post_send(rdma.SendWr(rdma.IONIC_V1_OP_SEND_IMM), 7 * SECOND, mem)
    assert log.lines[10:] == [(7 * SECOND, "P4 program denials not logged: 15 in the 5 s from t=2000000000000 ps")]
    assert path.denial_window_end_ps() is None
    path.post_send(send, 8 * SECOND, mem)
    assert log.lines[11:] == [(8 * SECOND, line)]


def test_flush_log_emits_the_count_at_the_end_of_the_window(policy):
    engine, mem, path, log = policy
    engine.insert("ingress.rdma_policy", [{"field": "meta.rdma_metadata.opcode", "value": 0}], "ingress.deny")
    for _ in range(11):
        path.post_send(rdma.SendWr(0), 0, mem)
    path.flush_log(5 * SECOND - 1)
    assert len(log.lines) == 10
    path.flush_log(5 * SECOND)
    assert log.lines[-1] == (5 * SECOND, "P4 program denials not logged: 1 in the 5 s from t=0 ps")


def test_an_ethernet_program_leaves_the_rdma_path_as_if_none_were_loaded():
    engine = program("minimal_forward.json")  # drops every frame until an entry exists
    mem, log = memory(), Log()
    path = rdma.RdmaPath(engine, log=log)
    assert not path.has_rdma_program
    for opcode in range(10):
        wr = rdma.SendWr(opcode, qp_num=1, rkey=DST, remote_addr=DST_ADDR,
                         sgl=[rdma.Sge(A_ADDR, 4, A), rdma.Sge(B_ADDR, 4, B)])
        assert path.post_send(wr, 0, mem) == rdma.Decision("dispatch", 0, "IBV_WC_SUCCESS")
    assert path.stats["runs"] == 0 and log.lines == []
    assert rdma.RdmaPath().post_send(rdma.SendWr(4), 0, mem).action == "dispatch"


def test_arguments_are_checked_by_name():
    mem = memory()
    path = rdma.RdmaPath()
    with pytest.raises(ValueError, match="opcode 0x100 is outside 0..2\\^8-1"):
        path.post_send(rdma.SendWr(256), 0, mem)
    with pytest.raises(ValueError, match="sge.length"):
        path.post_send(write(DST, DST_ADDR, (A_ADDR, 1 << 32, A)), 0, mem)
    with pytest.raises(ValueError, match="is not inside the memory window"):
        mem.register(9, 0x13ff0, 0x20)
    with pytest.raises(ValueError, match="the key is already registered"):
        mem.register(A, A_ADDR, 16)
    with pytest.raises(ValueError, match="owner must be 'local' or 'peer'"):
        mem.register(10, A_ADDR, 16, owner="remote")
    with pytest.raises(ValueError, match="larger than the limit"):
        rdma.Memory(0, (64 << 20) + 1)
    with pytest.raises(TypeError, match="now_ps must be an int"):
        path.post_send(rdma.SendWr(0), 1.5, mem)
