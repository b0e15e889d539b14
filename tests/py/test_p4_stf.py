"""The p4c STF suite of ../shared/p4-stf, in process: every program loads or is refused by
the name of a feature, and every STF test whose program loads passes (bmv2 simple_switch
passed all 263). The counts are printed."""
from dpusim import p4


def test_every_stf_program_loads_or_is_refused_by_name_and_every_loaded_test_passes(shared_dir):
    folder = shared_dir / "p4-stf"
    passed, failed, refused = [], [], {}
    for prog in sorted(folder.glob("*.json")):
        stf = prog.with_suffix(".stf")
        try:
            engine = p4.Engine.load_file(prog, "v1model")
        except p4.LoadError as e:
            refused[prog.stem] = (e.code, e.message)
            continue
        ok, message = engine.run_stf(stf.read_text())
        (passed if ok else failed).append((prog.stem, message))
    not_by_name = {n: r for n, r in refused.items() if "' is not supported yet" not in r[1]}
    by_feature = {}
    for name, (_, message) in refused.items():
        feature = message.split("'")[-2] if "' is not supported yet" in message else message
        by_feature.setdefault(feature, []).append(name)
    print(f"\np4-stf: {len(passed) + len(failed)} load ({len(passed)} pass, {len(failed)} fail), {len(refused)} refused by name")
    for feature, names in sorted(by_feature.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"  refused '{feature}': {len(names)}: {', '.join(sorted(names))}")
    for name, message in failed:
        print(f"  FAIL {name}: {message}")
    assert not not_by_name, not_by_name
    assert not failed, failed
    assert len(passed) + len(refused) == 263
