"""./dpusim fuzz's command line (dpusim.fuzz.main) without building or fuzzing anything: what
it says before a build, and the build asked for on its own."""
import pytest

from dpusim import fuzz

pytestmark = pytest.mark.python_only


@pytest.fixture
def steps(tmp_path, monkeypatch, capsys):
    """The commands main() would run, each with what stderr held when it ran; a fresh build-fuzz/."""
    out = []
    monkeypatch.setattr(fuzz, "BUILD", str(tmp_path / "build-fuzz"))

    def run(cmd, **kw):
        out.append((cmd[:2], capsys.readouterr().err))
    monkeypatch.setattr(fuzz.subprocess, "run", run)
    monkeypatch.setattr(fuzz, "run", lambda *a: pytest.fail("fuzzed: --build runs no harness"))
    return out


def test_a_fresh_build_is_announced_before_it_starts_and_build_alone_fuzzes_nothing(steps, tmp_path, capsys):
    assert fuzz.main(["pcap", "--build"]) == 0
    (configure, first), (compile_, between) = steps
    assert configure == ["cmake", "-S"] and compile_ == ["cmake", "--build"]
    assert first == (f"dpusim fuzz: configuring {tmp_path / 'build-fuzz'} and building fuzz_pcap (clang, ASan+UBSan; "
                     "minutes on a fresh clone, seconds when up to date; `./dpusim fuzz pcap --build` builds without "
                     "fuzzing)\n")
    assert between == ""
    assert capsys.readouterr().err == "dpusim fuzz: fuzz_pcap built\n"


def test_building_every_harness_names_them_all(steps, tmp_path):
    (tmp_path / "build-fuzz").mkdir()
    (tmp_path / "build-fuzz" / "build.ninja").write_text("")
    assert fuzz.main(["--build"]) == 0
    ((cmd, said),) = steps
    assert cmd == ["cmake", "--build"] and said.startswith("dpusim fuzz: building every fuzz harness (clang")


def test_a_target_with_all_is_refused(steps, capsys):
    assert fuzz.main(["pcap", "--all"]) == 2
    assert capsys.readouterr().err == "dpusim fuzz: --all takes no TARGET\n" and steps == []
