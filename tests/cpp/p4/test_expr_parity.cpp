// Expression arithmetic against bmv2's: src/bm_sim/expressions.cpp evaluates on Data, an
// unbounded GMP integer (include/bm/bm_sim/data.h), truncated only when written to a field
// and by the operators that name a width. Each case is one action over a metadata header
// (tests/data/p4/minimal_forward.json, patched); the expected values are the unbounded
// results cut to the destination's width, worked out by hand from those semantics.
#include <nlohmann/json.hpp>

#include "p4_test_util.h"

// Named apart from the other test files, with which a unity batch compiles this.
namespace dpusim::p4::test::expr_parity {
namespace {

using Json = nlohmann::json;

Json f(const char* name) { return {{"type", "field"}, {"value", {"m", name}}}; }
Json hx(const std::string& v) { return {{"type", "hexstr"}, {"value", v}}; }
Json op(const char* o, Json l, Json r) { return {{"type", "expression"}, {"value", {{"op", o}, {"left", l}, {"right", r}}}}; }
Json unary(const char* o, Json r) { return op(o, nullptr, r); }
Json assign(const char* dst, Json e) { return {{"op", "assign"}, {"parameters", {f(dst), e}}}; }
Json prim(const char* o, Json params) { return {{"op", o}, {"parameters", params}}; }
Json flag(Json cond) { return unary("b2d", cond); }
const std::string kMask512 = "0x" + std::string(128, 'f');

// The metadata header m: 16-bit operands and results, 64-bit sums, 512-bit wide values and
// a signed byte.
Json m_fields() {
  return Json::array({{"a", 16, false}, {"b", 16, false}, {"x", 16, false}, {"csum", 16, false}, {"sh", 16, false},
                      {"r", 16, false}, {"r2", 16, false}, {"ok", 8, false}, {"ok2", 8, false}, {"sgn", 8, true},
                      {"s", 64, false}, {"fold1", 64, false}, {"fold2", 64, false}, {"w", 512, false}});
}

std::unique_ptr<Engine> program(Json body, LoadError* err = nullptr) {
  Json doc = Json::parse(read_file(data_path("minimal_forward.json")));
  doc["header_types"].push_back({{"name", "m_t"}, {"id", 3}, {"fields", m_fields()}});
  doc["headers"].push_back({{"name", "m"}, {"id", 3}, {"header_type", "m_t"}, {"metadata", true}});
  doc["actions"][1]["primitives"] = body;
  Json& fwd = doc["pipelines"][0]["tables"][0];
  fwd["default_entry"]["action_id"] = 1;
  fwd["default_entry"]["action_data"] = {"0x0"};
  LoadOptions o;
  LoadError e;
  auto engine = Engine::load(doc.dump(), o, &e);
  if (err != nullptr) *err = e;
  else EXPECT_NE(engine, nullptr) << load_code_name(e.code) << ": " << e.message;
  return engine;
}

struct Outcome {
  std::unique_ptr<Engine> e;
  Verdict v;
  Value get(const std::string& name) const { return e->metadata().read_field(e->metadata().field_handle("m." + name)); }
};

Outcome run(Json body, const std::vector<std::pair<std::string, Value>>& in) {
  Outcome r{program(std::move(body)), {}};
  std::vector<std::pair<int, Value>> inputs;
  for (const auto& [name, v] : in) inputs.push_back({r.e->metadata().field_handle("m." + name), v});
  r.v = r.e->metadata().run(inputs);
  return r;
}

Value wide(const std::string& hex) {
  Value v;
  bool negative;
  EXPECT_TRUE(parse_hexstr(hex, &v, &negative));
  return v;
}

// The incremental checksum's shape: s = (a ++ b) + x, two folds of the carries
// (s & 0xffff) + (s >> 16), then ~fold compared with a 16-bit field.
Json checksum_body(bool masked) {
  auto m32 = [&](Json e) { return masked ? op("&", e, hx("0xffffffff")) : e; };
  Json concat = op("|", m32(op("<<", f("a"), hx("0x10"))), f("b"));
  Json fold = [&](const char* from) { return m32(op("+", op("&", f(from), hx("0xffff")), op(">>", f(from), hx("0x10")))); }("s");
  return Json::array({assign("s", m32(op("+", concat, f("x")))), assign("fold1", fold),
                      assign("fold2", m32(op("+", op("&", f("fold1"), hx("0xffff")), op(">>", f("fold1"), hx("0x10"))))),
                      assign("r", op("&", unary("~", f("fold2")), hx("0xffff"))),
                      assign("ok", flag(op("==", op("&", unary("~", f("fold2")), hx("0xffff")), f("csum")))),
                      // ~ unmasked is -fold2-1: never equal to a field
                      assign("ok2", flag(op("==", unary("~", f("fold2")), f("csum"))))});
}

TEST(ExprParity, IncrementalChecksumKeepsTheCarryOutOfBit31WhenNothingMasksIt) {
  // 0xffffffff + 1 = 0x1_0000_0000 unbounded; folds 0x10000, then 0x1; ~0x1 & 0xffff = 0xfffe.
  Outcome r = run(checksum_body(false), {{"a", Value::of(0xffff)}, {"b", Value::of(0xffff)}, {"x", Value::of(1)}, {"csum", Value::of(0xfffe)}});
  EXPECT_FALSE(r.v.dropped);
  EXPECT_EQ(r.get("s"), Value::of(0x100000000ull));
  EXPECT_EQ(r.get("fold1"), Value::of(0x10000));
  EXPECT_EQ(r.get("fold2"), Value::of(1));
  EXPECT_EQ(r.get("r"), Value::of(0xfffe));
  EXPECT_EQ(r.get("ok"), Value::of(1));
  EXPECT_EQ(r.get("ok2"), Value::of(0));
}

TEST(ExprParity, IncrementalChecksumAsP4cMasksItDropsTheCarry) {
  // bit<32> arithmetic: the sum wraps to 0, both folds are 0, ~0 & 0xffff = 0xffff.
  Outcome r = run(checksum_body(true), {{"a", Value::of(0xffff)}, {"b", Value::of(0xffff)}, {"x", Value::of(1)}, {"csum", Value::of(0xfffe)}});
  EXPECT_EQ(r.get("s"), Value::of(0));
  EXPECT_EQ(r.get("fold2"), Value::of(0));
  EXPECT_EQ(r.get("r"), Value::of(0xffff));
  EXPECT_EQ(r.get("ok"), Value::of(0));
  EXPECT_EQ(r.get("ok2"), Value::of(0));
}

TEST(ExprParity, AFoldOverValuesPastTheCarriedBitsKeepsItsLowBits) {
  // w = 2^512 - 1: s = (w << 64) * 2 needs 577 bits. Its low bits survive every step, and
  // the masks make the results whole: s >> 512 & (2^64-1) = 2^64-1; the folds' low 64 bits
  // are 0xfffffffe00000000 and ~fold2 & 0xffff = 0xffff (Python's integers agree).
  Json s = op("+", op("<<", f("w"), hx("0x40")), op("<<", f("w"), hx("0x40")));
  Json fold1 = op("+", op("&", s, hx("0xffff")), op(">>", s, hx("0x10")));
  Json fold2 = op("+", op("&", fold1, hx("0xffff")), op(">>", fold1, hx("0x10")));
  Outcome r = run(Json::array({assign("s", op("&", op(">>", s, hx("0x200")), hx("0xffffffffffffffff"))), assign("fold2", fold2),
                           assign("r", op("&", unary("~", fold2), hx("0xffff"))),
                           assign("ok", flag(op("==", op("&", unary("~", fold2), hx("0xffff")), f("csum"))))}),
              {{"w", wide(kMask512)}, {"csum", Value::of(0xffff)}});
  EXPECT_FALSE(r.v.dropped) << (r.v.fault != nullptr ? r.v.fault : "");
  EXPECT_EQ(r.get("s"), Value::of(0xffffffffffffffffull));
  EXPECT_EQ(r.get("fold2"), Value::of(0xfffffffe00000000ull));
  EXPECT_EQ(r.get("r"), Value::of(0xffff));
  EXPECT_EQ(r.get("ok"), Value::of(1));
}

TEST(ExprParity, ShiftsPastTheCarriedWidthGiveZeroOrMinusOne) {
  // x >> 1000 = 0; (0 - x) >> 1000 = -1, written to 16 bits 0xffff; (x << 1000) & 0xffff = 0;
  // the amount a field (sh = 600), as well as a constant.
  Outcome r = run(Json::array({assign("r", op(">>", f("x"), f("sh"))), assign("r2", op(">>", op("-", hx("0x0"), f("x")), hx("0x3e8"))),
                           assign("s", op("&", op("<<", f("x"), hx("0x3e8")), hx("0xffff"))),
                           assign("ok", flag(op("==", op(">>", op("-", hx("0x0"), f("x")), f("sh")), hx("-0x1"))))}),
              {{"x", Value::of(0x1234)}, {"sh", Value::of(600)}, {"s", Value::of(7)}});
  EXPECT_FALSE(r.v.dropped) << (r.v.fault != nullptr ? r.v.fault : "");
  EXPECT_EQ(r.get("r"), Value::of(0));
  EXPECT_EQ(r.get("r2"), Value::of(0xffff));
  EXPECT_EQ(r.get("s"), Value::of(0));
  EXPECT_EQ(r.get("ok"), Value::of(1));
}

TEST(ExprParity, P414ShiftPrimitivesTakeAnyAmount) {
  Outcome r = run(Json::array({prim("shift_left", {f("r"), f("x"), hx("0x258")}), prim("shift_right", {f("r2"), f("x"), f("sh")}),
                           prim("shift_left", {f("s"), f("x"), hx("0x30")})}),
              {{"x", Value::of(0x1234)}, {"sh", Value::of(9000)}, {"r", Value::of(5)}, {"r2", Value::of(5)}});
  EXPECT_FALSE(r.v.dropped) << (r.v.fault != nullptr ? r.v.fault : "");
  EXPECT_EQ(r.get("r"), Value::of(0));
  EXPECT_EQ(r.get("r2"), Value::of(0));
  EXPECT_EQ(r.get("s"), Value::of(0x1234000000000000ull));
}

TEST(ExprParity, UnaryMinusIsZeroMinus) {
  // bmv2's build_expression (P4Objects.cpp) loads 0 for the missing left of "-" and "+".
  Json minus_x = {{"type", "expression"}, {"value", {{"op", "-"}, {"right", f("x")}}}};  // no "left" at all
  Outcome r = run(Json::array({assign("r", op("&", unary("-", f("x")), hx("0xffff"))), assign("r2", unary("+", f("x"))),
                           assign("ok", flag(op("<", minus_x, hx("0x0")))), assign("ok2", flag(op("==", minus_x, hx("-0x1234"))))}),
              {{"x", Value::of(0x1234)}});
  EXPECT_EQ(r.get("r"), Value::of(0xedcc));
  EXPECT_EQ(r.get("r2"), Value::of(0x1234));
  EXPECT_EQ(r.get("ok"), Value::of(1));
  EXPECT_EQ(r.get("ok2"), Value::of(1));
}

TEST(ExprParity, UnaryOperatorsOtherThanMinusAndPlusStillNeedTheirLeft) {
  LoadError e;
  EXPECT_EQ(program(Json::array({assign("r", unary("*", f("x")))}), &e), nullptr);
  EXPECT_EQ(e.code, LoadCode::kSchema);
  EXPECT_NE(e.message.find("operator '*' has no left operand"), std::string::npos) << e.message;
}

TEST(ExprParity, NotIsMinusXMinusOneAndComparesSigned) {
  // ~x = -x-1 (GMP's complement): below zero, unequal to the field's own complement bits,
  // and equal to them once masked. The signed field sgn = -3: sgn >> 1 = -2 (a floor), 0xfe.
  Outcome r = run(Json::array({assign("ok", flag(op("<", unary("~", f("x")), hx("0x0")))),
                           assign("ok2", flag(op("==", unary("~", f("x")), hx("0xedcb")))),
                           assign("r", op("&", unary("~", f("x")), hx("0xffff"))), assign("r2", op(">>", f("sgn"), hx("0x1"))),
                           assign("s", op("&", op(">>", f("sgn"), hx("0x1")), hx("0xffffffffffffffff")))}),
              {{"x", Value::of(0x1234)}, {"sgn", Value::of(0xfd)}});
  EXPECT_EQ(r.get("ok"), Value::of(1));
  EXPECT_EQ(r.get("ok2"), Value::of(0));
  EXPECT_EQ(r.get("r"), Value::of(0xedcb));
  EXPECT_EQ(r.get("r2"), Value::of(0xfffe));
  EXPECT_EQ(r.get("s"), Value::of(0xfffffffffffffffeull));
}

TEST(ExprParity, TwoCompModAndEqualityNeedOnlyTheKnownLowBits) {
  // w = 2^511 + 0x1234: (w << 70) + 0xfff0 needs 582 bits; its low 16 read signed are -16.
  // ((w << 70) + 1) == 1 is false, and d2b of it true: the carried low bits already differ
  // from 1 and from 0 (0x1234 << 70 is in them).
  Json big = op("<<", f("w"), hx("0x46"));
  Outcome r = run(Json::array({assign("r", op("two_comp_mod", op("+", big, hx("0xfff0")), hx("0x10"))),
                           assign("ok", flag(op("<", op("two_comp_mod", op("+", big, hx("0xfff0")), hx("0x10")), hx("0x0")))),
                           assign("ok2", flag(op("==", op("+", big, hx("0x1")), hx("0x1")))),
                           assign("sgn", flag(unary("d2b", op("+", big, hx("0x1")))))}),
              {{"w", wide("0x8" + std::string(123, '0') + "1234")}, {"ok2", Value::of(7)}});
  EXPECT_FALSE(r.v.dropped) << (r.v.fault != nullptr ? r.v.fault : "");
  EXPECT_EQ(r.get("r"), Value::of(0xfff0));
  EXPECT_EQ(r.get("ok"), Value::of(1));
  EXPECT_EQ(r.get("ok2"), Value::of(0));
  EXPECT_EQ(r.get("sgn"), Value::of(1));
}

// Where the low bits cannot settle it, the run faults (a frame is dropped and counted)
// rather than give what the lost bits would have changed.
void expect_fault(Json body, const std::vector<std::pair<std::string, Value>>& in, const char* what) {
  Outcome r = run(std::move(body), in);
  EXPECT_EQ(r.v.reason, DropReason::kFault);
  EXPECT_STREQ(r.v.fault, what);
}

TEST(ExprParity, WhatNeedsTheLostHighBitsFaults) {
  const char* lost = "a value past the carried 576 bits where its high bits matter";
  // 2^511 << 70 = 2^581: low 576 bits 0, so + 1 == 1 in them; bmv2 says false.
  expect_fault(Json::array({assign("ok", flag(op("==", op("+", op("<<", f("w"), hx("0x46")), hx("0x1")), hx("0x1"))))}),
               {{"w", wide("0x8" + std::string(127, '0'))}}, lost);
  // (w << 63) * 2 = 2^575 leaves [-2^575, 2^575): its sign is not carried.
  Json half = op("<<", f("w"), hx("0x3f"));
  expect_fault(Json::array({assign("ok", flag(op(">", op("+", half, half), hx("0x0"))))}), {{"w", wide("0x8" + std::string(127, '0'))}}, lost);
  // ((w << 64) >> 564) & 0xffff needs bits 564..579 of w << 64; only 576 are carried.
  expect_fault(Json::array({assign("r", op("&", op(">>", op("<<", f("w"), hx("0x40")), hx("0x234")), hx("0xffff")))}),
               {{"w", wide("0xabc" + std::string(125, '0'))}}, lost);
}

TEST(ExprParity, DivisionOfANegativeValueAndANegativeShiftFault) {
  // bmv2 asserts both operands of / and % are non-negative and a shift amount too.
  Json neg = op("-", hx("0x0"), f("x"));
  expect_fault(Json::array({assign("r", op("/", neg, hx("0x2")))}), {{"x", Value::of(6)}}, "a division or remainder of a negative value");
  expect_fault(Json::array({assign("r", op("%", f("x"), neg))}), {{"x", Value::of(6)}}, "a division or remainder of a negative value");
  expect_fault(Json::array({assign("r", op("<<", f("x"), neg))}), {{"x", Value::of(6)}}, "a shift by a negative amount");
  Outcome r = run(Json::array({assign("r", op("/", f("x"), hx("0x7"))), assign("r2", op("%", f("x"), hx("0x7")))}), {{"x", Value::of(0x1234)}});
  EXPECT_EQ(r.get("r"), Value::of(0x1234 / 7));
  EXPECT_EQ(r.get("r2"), Value::of(0x1234 % 7));
}

}  // namespace
}  // namespace dpusim::p4::test::expr_parity
