// libsystemc's main() references sc_main. Executables that link SystemC for an RTL model but
// run the kernel themselves (sc_start from their own main) compile this in.
extern "C" int sc_main(int, char**) { return 0; }
