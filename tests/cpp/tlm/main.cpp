// gtest entry point for tests that link SystemC. libsystemc references sc_main; the tests
// never call it (they start the kernel with sc_start themselves).
#include <gtest/gtest.h>

#include <cstdlib>

extern "C" int sc_main(int, char**) { return 0; }

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
