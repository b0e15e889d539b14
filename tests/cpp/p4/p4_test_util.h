// Helpers shared by the P4 engine's unit tests.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dpusim/p4/engine.h"

namespace dpusim::p4::test {

inline std::string data_path(const std::string& name) { return std::string(DPUSIM_P4_TEST_DATA) + "/" + name; }

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::unique_ptr<Engine> load_data(const std::string& name, PortPolicy policy = PortPolicy::kDevice) {
  LoadOptions o;
  o.policy = policy;
  LoadError e;
  auto engine = Engine::load_file(data_path(name), o, &e);
  EXPECT_NE(engine, nullptr) << name << ": error[" << load_code_name(e.code) << "]: " << e.message;
  return engine;
}

inline std::vector<std::uint8_t> bytes(std::initializer_list<int> b) {
  std::vector<std::uint8_t> v;
  for (int x : b) v.push_back(static_cast<std::uint8_t>(x));
  return v;
}

inline std::vector<std::uint8_t> from_hex(const std::string& hex) {
  std::vector<std::uint8_t> v;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) v.push_back(static_cast<std::uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return v;
}

inline std::vector<std::uint8_t> out(const Verdict& v) { return v.dropped ? std::vector<std::uint8_t>{} : std::vector<std::uint8_t>(v.data, v.data + v.size); }

}  // namespace dpusim::p4::test
