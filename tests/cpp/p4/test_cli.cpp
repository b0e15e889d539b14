// simple_switch_CLI's commands (SwitchCli) on tests/data/p4/v1model_ops.json: the number
// forms, match kinds, handles, priorities, what reads print, and refusals naming the
// command and the line.
#include "cli_values.h"
#include "dpusim/p4/cli.h"
#include "p4_test_util.h"

namespace dpusim::p4::test {
namespace {

std::vector<std::uint8_t> tag(int op, int arg = 0, std::uint32_t data = 0) {
  std::vector<std::uint8_t> f = from_hex("020000000002" "020000000001" "88b5");
  f.push_back(static_cast<std::uint8_t>(op));
  f.push_back(static_cast<std::uint8_t>(arg));
  f.insert(f.end(), {0, 0, static_cast<std::uint8_t>(data >> 24), static_cast<std::uint8_t>(data >> 16),
                     static_cast<std::uint8_t>(data >> 8), static_cast<std::uint8_t>(data), 0, 0, 0, 0});
  return f;
}

struct Fixture {
  std::unique_ptr<Engine> e = load_data("v1model_ops.json", PortPolicy::kV1Model);
  SwitchCli cli{*e};
  std::string out;
  void ok(const std::string& line) {
    std::string error;
    ASSERT_TRUE(cli.execute(line, &out, &error)) << line << ": " << error;
  }
  std::string refused(const std::string& line) {
    std::string error;
    EXPECT_FALSE(cli.execute(line, &out, &error)) << line;
    return error;
  }
  int port(const std::vector<std::uint8_t>& f) {
    Verdict v = e->process(1, f.data(), f.size());
    return v.dropped ? -1 : static_cast<int>(v.port);
  }
};

TEST(Cli, NumbersTakeTheFormsTheCliTakes) {
  Value v;
  std::string error;
  ASSERT_TRUE(parse_cli_param("10.1.2.3", 32, &v, &error));
  EXPECT_EQ(v, Value::of(0x0a010203));
  ASSERT_TRUE(parse_cli_param("00:aa:bb:00:00:01", 48, &v, &error));
  EXPECT_EQ(v, Value::of(0x00aabb000001ull));
  ASSERT_TRUE(parse_cli_param("2001:db8::1", 128, &v, &error));
  EXPECT_EQ(v.to_hex(), "0x20010db8000000000000000000000001");
  ASSERT_TRUE(parse_cli_param("0b101", 8, &v, &error));
  EXPECT_EQ(v, Value::of(5));
  ASSERT_TRUE(parse_cli_param("1_000", 16, &v, &error));
  EXPECT_EQ(v, Value::of(1000));
  EXPECT_FALSE(parse_cli_param("10.1.2", 32, &v, &error));
  EXPECT_EQ(error, "invalid IPv4 address '10.1.2'");
  EXPECT_FALSE(parse_cli_param("0x1ff", 8, &v, &error));  // runtime_CLI's int_to_bytes: too large
  EXPECT_EQ(error, "'0x1ff' does not fit 1 bytes");
  EXPECT_FALSE(parse_cli_param("ten", 8, &v, &error));
}

TEST(Cli, TableAddDeleteAndModifyGoByHandle) {
  Fixture f;
  f.ok("table_add ingress.ops ingress.set_port 1 => 2");  // handle 0
  f.ok("table_add ops set_port 2 => 3");                   // unique suffixes: handle 1
  EXPECT_EQ(f.port(tag(1)), 2);
  EXPECT_EQ(f.port(tag(2)), 3);
  f.ok("table_modify ingress.ops ingress.set_port 1 => 7");
  EXPECT_EQ(f.port(tag(2)), 7);
  f.ok("table_delete ingress.ops 0");
  EXPECT_EQ(f.port(tag(1)), 0);  // NoAction: egress_spec stays 0
  f.ok("table_add ingress.ops ingress.set_port 3 => 4");  // the free handle 0 again
  f.ok("table_delete ingress.ops 0");
  EXPECT_EQ(f.port(tag(3)), 0);
  EXPECT_EQ(f.refused("table_delete ingress.ops 0"), "table_delete: table 'ingress.ops' has no entry of handle 0");
  f.ok("table_num_entries ingress.ops");
  EXPECT_EQ(f.out, "1\n");
}

TEST(Cli, LpmTakesAddressesAndRangeAndTernaryTakeALastWordPriority) {
  Fixture f;
  f.ok("table_add ingress.routes ingress.route 10.1.0.0/16 => 5");
  f.ok("table_add ingress.routes ingress.route 10.1.2.0/24 => 6");
  std::vector<std::uint8_t> ip = from_hex("020000000002020000000001" "0800" "45000014000100004011" "0000" "0a000001" "0a010203");
  EXPECT_EQ(f.port(ip), 6);
  EXPECT_EQ(f.refused("table_add ingress.ranges ingress.set_out 1->2 0&&&0 => 7 high"),
            "table_add: table 'ingress.ranges' is range: the last word is a priority in [0, 2147483646], not 'high'");
  // Without a priority the last word is taken for one, and the action misses its argument.
  EXPECT_EQ(f.refused("table_add ingress.ranges ingress.set_out 1->2 0&&&0 => 7"),
            "table_add: action 'ingress.set_out' needs 1 parameters, not 0");
  EXPECT_NE(f.refused("table_add ingress.ranges ingress.set_out 1->2 => 7 1").find("needs 2 key fields, not 1"), std::string::npos);
  EXPECT_NE(f.refused("table_add ingress.ranges ingress.set_out 1->2 0 => 7 1").find("write value&&&mask"), std::string::npos);
  EXPECT_NE(f.refused("table_add ingress.routes ingress.route 10.1.0.0 => 5").find("write value/prefix_length"), std::string::npos);
}

TEST(Cli, ProfilesMembersAndGroupsByTheHandlesTheCliPrints) {
  Fixture f;
  f.ok("act_prof_create_member ingress.ap ingress.pick 3 0xaaaa");  // member 0
  f.ok("act_prof_create_member ingress.ap ingress.pick 4 0xbbbb");  // member 1
  f.ok("act_prof_create_group ingress.ap");                          // group 0
  f.ok("act_prof_add_member_to_group ingress.ap 1 0");
  f.ok("table_indirect_add_with_group ingress.select 1 => 0");
  EXPECT_EQ(f.port(tag(1)), 4);  // the group's only member
  EXPECT_NE(f.refused("act_prof_delete_member ingress.ap 1").find("error[in_use]"), std::string::npos);
  f.ok("act_prof_remove_member_from_group ingress.ap 1 0");
  f.ok("act_prof_delete_member ingress.ap 1");
  EXPECT_EQ(f.port(tag(1)), 0);  // an empty group runs nothing
  EXPECT_NE(f.refused("table_add ingress.select ingress.pick 1 => 3 0").find("is indirect: use table_indirect_add"), std::string::npos);
  f.ok("table_indirect_add ingress.select 2 => 0");  // member 0 directly
  EXPECT_EQ(f.port(tag(2)), 3);
}

TEST(Cli, ReadsPrintAsTheCliPrints) {
  Fixture f;
  f.ok("table_add ingress.ops ingress.count_it 1 => 3");
  f.port(tag(1));
  f.ok("counter_read ingress.ctr 3");
  f.ok("register_write ingress.reg 2 77");
  f.ok("register_read ingress.reg 2");
  EXPECT_EQ(f.out, "ingress.ctr[3]= (26 bytes, 1 packets)\ningress.reg[2]= 77\n");
  f.out.clear();
  f.ok("counter_write ingress.ctr 3 5 500");
  f.ok("counter_read ctr 3");
  EXPECT_EQ(f.out, "ctr[3]= (500 bytes, 5 packets)\n");
  EXPECT_NE(f.refused("register_write ingress.reg 2 0x100000000").find("wider than its 32 bits"), std::string::npos);
  EXPECT_NE(f.refused("meter_set_rates ingress.mtr 0 0.5:10").find("takes 2 rates, not 1"), std::string::npos);
  EXPECT_NE(f.refused("meter_set_rates ingress.mtr 0 2:10 1:10").find("rates go slowest first"), std::string::npos);
}

TEST(Cli, AFileStopsAtTheFirstRefusedLineNamingIt) {
  Fixture f;
  std::string out, error;
  const std::string text =
      "# a comment, then a blank line\n"
      "\n"
      "table_set_default ingress.ops ingress.drop\n"
      "mirroring_add 5 7\n"
      "swap_configs\n"
      "table_add ingress.ops ingress.set_port 1 => 2\n";
  EXPECT_FALSE(f.cli.run(text, &out, &error));
  EXPECT_EQ(error, "line 5: swap_configs: command 'swap_configs' is not supported");
  EXPECT_EQ(f.port(tag(1)), -1);  // the default drop was set; the add after line 5 was not run
  EXPECT_FALSE(f.cli.run("mc_node_create 1 2 | 3\n", &out, &error));
  EXPECT_EQ(error, "line 1: mc_node_create: LAGs are not supported (the node's lag list after '|')");
}

}  // namespace
}  // namespace dpusim::p4::test
