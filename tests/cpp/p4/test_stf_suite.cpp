// The p4c STF suite (the shared test data's p4-stf folder; skipped where absent): every one of
// the 263 tests passes. extern-funcs-bmv2 runs as simple_switch ran it, with the extern
// function of p4c's test module (testdata/extern_modules/extern-funcs-bmv2.cpp: f <- d)
// registered, as --load-modules would.
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "dpusim/p4/stf.h"
#include "p4_test_util.h"

namespace dpusim::p4::test {
namespace {

std::filesystem::path shared_dir() {
  if (const char* env = std::getenv("DPUSIM_SHARED")) return env;
  return std::filesystem::path(DPUSIM_SOURCE_DIR).parent_path() / "shared";
}

// p4c's test module: extern_func(out f, in d) sets f to d.
ExternResult extern_func(ExternCall& call) {
  call.args[0] = call.args[1];
  return ExternResult::kContinue;
}

TEST(StfSuite, EveryTestPasses) {
  const auto folder = shared_dir() / "p4-stf";
  if (!std::filesystem::is_directory(folder)) GTEST_SKIP() << folder << " is absent";
  ExternRegistry module;
  module.add_function({"extern_func", 2, 2, {0}, &extern_func});
  std::vector<std::filesystem::path> programs;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".json") programs.push_back(entry.path());
  std::sort(programs.begin(), programs.end());
  ASSERT_EQ(programs.size(), 263u);
  int passed = 0;
  for (const auto& prog : programs) {
    SCOPED_TRACE(prog.stem().string());
    LoadOptions o;
    o.policy = PortPolicy::kV1Model;
    o.externs = &module;
    LoadError e;
    auto engine = Engine::load_file(prog.string(), o, &e);
    ASSERT_NE(engine, nullptr) << "error[" << load_code_name(e.code) << "]: " << e.message;
    auto stf = prog;
    stf.replace_extension(".stf");
    StfOutcome r = run_stf(*engine, read_file(stf.string()));
    EXPECT_TRUE(r.passed) << r.message;
    passed += r.passed ? 1 : 0;
  }
  EXPECT_EQ(passed, 263);
}

}  // namespace
}  // namespace dpusim::p4::test
