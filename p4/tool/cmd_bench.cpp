#include <iostream>
#include "tool.h"
namespace dpusim::p4::tool {
int cmd_bench(const std::vector<std::string>&) { std::cerr << "bench: WIP\n"; return 2; }
}
