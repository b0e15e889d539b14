// The loader against tests/data/p4/reject_cases.json: each case is refused with its code
// and a message holding the expected words, and every base program loads unpatched.
#include <nlohmann/json.hpp>

#include "dpusim/p4/limits.h"
#include "p4_test_util.h"

namespace dpusim::p4::test {
namespace {

using Json = nlohmann::json;

std::string document_of(const Json& c) {
  if (c.contains("document")) return c["document"].get<std::string>();
  if (c.contains("generate")) {
    const Json& g = c["generate"];
    const std::string kind = g["kind"];
    if (kind == "oversize") {
      // Valid JSON, one byte over the limit: refused by its size alone.
      std::string s = "{\"pad\": \"" + std::string(P4_MAX_DOCUMENT_BYTES, 'x') + "\"}";
      return s;
    }
    if (kind == "cost") {
      std::string s = "[";
      for (int i = 0; i < g["objects"].get<int>(); ++i) s += i ? ",{}" : "{}";
      return s + "]";
    }
    if (kind == "depth") {
      int n = g["levels"];
      return std::string(static_cast<std::size_t>(n), '[') + std::string(static_cast<std::size_t>(n), ']');
    }
    if (kind == "long_array") {
      Json doc = Json::parse(read_file(data_path(g["base"])));
      Json arr = Json::array();
      for (int i = 0; i < g["count"].get<int>(); ++i) arr.push_back(g["item"]);
      doc[Json::json_pointer(g["path"].get<std::string>())] = arr;
      return doc.dump();
    }
    ADD_FAILURE() << "unknown generator " << kind;
    return "";
  }
  Json doc = Json::parse(read_file(data_path(c["base"])));
  return doc.patch(c["patch"]).dump();
}

TEST(RejectCases, EachCaseIsRefusedWithItsCodeAndReason) {
  Json cases = Json::parse(read_file(data_path("reject_cases.json")))["cases"];
  ASSERT_GE(cases.size(), 60u);
  for (const Json& c : cases) {
    SCOPED_TRACE(c["name"].get<std::string>());
    std::string text = document_of(c);
    LoadError error;
    auto engine = Engine::load(text, LoadOptions{}, &error);
    ASSERT_EQ(engine, nullptr) << "loaded";
    EXPECT_EQ(load_code_name(error.code), c["code"].get<std::string>()) << error.message;
    EXPECT_NE(error.message.find(c["message"].get<std::string>()), std::string::npos) << error.message;
  }
}

TEST(RejectCases, BaseProgramsLoadUnpatched) {
  for (const char* base : {"minimal_forward.json", "features.json", "loopback.json", "key_mask.json"}) {
    SCOPED_TRACE(base);
    load_data(base);
  }
}

TEST(RejectCases, EveryLoadCodeHasAStableName) {
  // The codes are an interface: the CLI prints them and tests match on them.
  EXPECT_STREQ(load_code_name(LoadCode::kPipelineCycle), "pipeline_cycle");
  EXPECT_STREQ(load_code_name(LoadCode::kUnsupported), "unsupported");
  EXPECT_STREQ(update_code_name(UpdateCode::kTableFull), "table_full");
}

}  // namespace
}  // namespace dpusim::p4::test
