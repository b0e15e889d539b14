"""The real bmv2 programs of ../shared/p4-corpus: each loads or is refused by the name of
the feature it uses, the ones this engine builds load, and the packet expectations of the
corpus README hold for the programs that load (bmv2's port policy, as its tests use)."""
import pytest

from dpusim import p4

# The corpus programs that use only what the engine built first (docs/p4.md).
MUST_LOAD = [
    "targets_simple_switch_grpc_tests_testdata_loopback.json",
    "targets_simple_switch_grpc_tests_testdata_packet_io.json",
    "targets_simple_switch_tests_testdata_parser_error.json",
    "targets_simple_switch_tests_testdata_swap_1.json",
    "targets_simple_switch_tests_testdata_swap_2.json",
    "targets_simple_switch_tests_CLI_tests_testdata_table_dump_extra.json",
    "targets_simple_switch_grpc_tests_testdata_ternary.json",
    "targets_simple_switch_grpc_tests_testdata_optional.json",
    "tests_stress_tests_testdata_exact_match_1.json",
    "tests_stress_tests_testdata_LPM_match_1.json",
    "tests_stress_tests_testdata_ternary_match_1.json",
    "tests_stress_tests_testdata_parser_deparser_1.json",
]
# Not v1model programs (PNA, or loader fixtures with no architecture at all): nothing in
# them says where a frame goes, which is the refusal they get.
NOT_V1MODEL = {
    "targets_pna_nic_tests_testdata_pna-demo-L2-one-table.json",
    "tests_testdata_empty_config.json",
    "tests_testdata_config_options.json",
    "tests_testdata_one_header.json",
    "tests_testdata_logging.json",
}


def corpus(shared_dir):
    return sorted((shared_dir / "p4-corpus").glob("*.json"))


def test_every_corpus_program_loads_or_is_refused_by_name(shared_dir):
    loaded, refused = [], {}
    for path in corpus(shared_dir):
        try:
            p4.Engine.load_file(path)
            loaded.append(path.name)
        except p4.LoadError as e:
            if path.name in NOT_V1MODEL:
                assert e.code == "no_egress_spec", (path.name, e)
            else:
                assert e.code in ("unsupported", "signed_field") and "' is not supported yet" in e.message, (path.name, e)
            refused[path.name] = e.message
    print(f"\ncorpus: {len(loaded)} load, {len(refused)} refused")
    for name, message in sorted(refused.items()):
        print(f"  {name}: {message}")
    assert set(MUST_LOAD) <= set(loaded)


def v1model(shared_dir, name):
    return p4.Engine.load_file(shared_dir / "p4-corpus" / name, "v1model")


def test_parser_error_expectations(shared_dir):
    e = v1model(shared_dir, "targets_simple_switch_tests_testdata_parser_error.json")
    # NoError; PacketTooShort (h re-validated, then the 2 unparsed bytes); the custom error.
    assert e.process(1, bytes.fromhex("00000000")) == p4.Forwarded(1, bytes.fromhex("00000000"))
    assert e.process(1, bytes.fromhex("0000")) == p4.Forwarded(1, bytes.fromhex("000000010000"))
    assert e.process(1, bytes.fromhex("000000ab")) == p4.Forwarded(1, bytes.fromhex("00000002"))
    assert e.stats["parse_errors"] == 2


def test_truncate_expectation(shared_dir):
    e = v1model(shared_dir, "targets_simple_switch_tests_testdata_truncate.json")
    e.set_default("t_ingress", "_nop")
    e.insert("t_ingress", [{"field": "hdrA.f1", "value": 1}], "_truncate", {"new_length": 32, "port": 2})
    frame = b"\x01" + b"\xab" * 127
    assert e.process(1, frame) == p4.Forwarded(2, frame[:32])


@pytest.mark.parametrize("name,frame", [
    ("tests_testdata_unions_e2e_options_count.json", "020a0b66ab"),
    ("tests_testdata_unions_e2e_options_bos.json", "0b00770a01"),
])
def test_union_parse_then_deparse_gives_back_the_same_bytes(shared_dir, name, frame):
    e = v1model(shared_dir, name)
    assert e.process(0, bytes.fromhex(frame)) == p4.Forwarded(0, bytes.fromhex(frame))


@pytest.mark.parametrize("name,feature", [
    ("targets_simple_switch_tests_testdata_recirc.json", "'recirculate'"),
    ("targets_simple_switch_tests_testdata_packet_redirect.json", "'recirculate'"),
    ("targets_simple_switch_grpc_tests_testdata_simple_router.json", "'checksums'"),
    ("targets_simple_router_simple_router.json", "'checksums'"),
])
def test_expectations_of_programs_that_do_not_load_are_refusals_by_name(shared_dir, name, feature):
    with pytest.raises(p4.LoadError) as refused:
        p4.Engine.load_file(shared_dir / "p4-corpus" / name)
    assert feature + " is not supported yet" in refused.value.message
