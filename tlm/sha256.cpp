#include "tlm/sha256.h"

#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace dpusim::pcie {

namespace {
// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first
// 64 primes.
constexpr uint32_t kK[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }
}  // namespace

void Sha256::reset() {
  // §5.3.3: the first 32 bits of the fractional parts of the square roots of the first 8 primes.
  h_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  buffered_ = 0;
  total_ = 0;
}

#if defined(__x86_64__)
namespace {
// The same compression with the x86 SHA extensions (Intel, "Intel SHA Extensions", 2013): the
// state as ABEF and CDGH, two rounds per SHA256RNDS2, the schedule by SHA256MSG1/MSG2. About ten
// times the portable loop's speed where the CPU has them; the digest is the same either way.
__attribute__((target("sha,sse4.1"))) void block_sha_ni(uint32_t* h, const uint8_t* p) {
  const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
  __m128i dcba = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h)), 0xB1);  // CDAB
  __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h + 4)), 0x1B);
  __m128i abef = _mm_alignr_epi8(dcba, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, dcba, 0xF0);
  const __m128i abef0 = abef, cdgh0 = cdgh;
  __m128i w[4];
  for (unsigned k = 0; k < 16; ++k) {
    if (k < 4) {
      w[k] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k)), swap);
    } else {
      __m128i t = _mm_sha256msg1_epu32(w[(k - 4) & 3], w[(k - 3) & 3]);
      t = _mm_add_epi32(t, _mm_alignr_epi8(w[(k - 1) & 3], w[(k - 2) & 3], 4));
      w[k & 3] = _mm_sha256msg2_epu32(t, w[(k - 1) & 3]);
    }
    __m128i msg = _mm_add_epi32(w[k & 3], _mm_loadu_si128(reinterpret_cast<const __m128i*>(kK + 4 * k)));
    cdgh = _mm_sha256rnds2_epu32(cdgh, abef, msg);  // now the new ABEF
    msg = _mm_shuffle_epi32(msg, 0x0E);
    abef = _mm_sha256rnds2_epu32(abef, cdgh, msg);  // the old ABEF was the new CDGH
  }
  abef = _mm_add_epi32(abef, abef0);
  cdgh = _mm_add_epi32(cdgh, cdgh0);
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h), _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h + 4), _mm_alignr_epi8(dchg, feba, 8));
}

// CPUID leaf 1 ECX bit 19 (SSE4.1) and leaf 7 subleaf 0 EBX bit 29 (SHA), read directly:
// clang 14 does not know __builtin_cpu_supports("sha").
bool have_sha_ni() {
  static const bool yes = [] {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 19))) return false;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    return (b & (1u << 29)) != 0;
  }();
  return yes;
}
}  // namespace
#endif

void Sha256::block(const uint8_t* p) {
#if defined(__x86_64__)
  if (extensions_ && have_sha_ni()) return block_sha_ni(h_.data(), p);
#endif
  uint32_t w[64];
  for (unsigned t = 0; t < 16; ++t)
    w[t] = uint32_t(p[4 * t]) << 24 | uint32_t(p[4 * t + 1]) << 16 | uint32_t(p[4 * t + 2]) << 8 | p[4 * t + 3];
  for (unsigned t = 16; t < 64; ++t) {
    const uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
  for (unsigned t = 0; t < 64; ++t) {
    const uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kK[t] + w[t];
    const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h_[0] += a;
  h_[1] += b;
  h_[2] += c;
  h_[3] += d;
  h_[4] += e;
  h_[5] += f;
  h_[6] += g;
  h_[7] += h;
}

void Sha256::update(const uint8_t* p, size_t n) {
  total_ += n;
  if (buffered_) {
    const size_t take = std::min(n, buf_.size() - buffered_);
    std::memcpy(buf_.data() + buffered_, p, take);
    buffered_ += take;
    p += take;
    n -= take;
    if (buffered_ < buf_.size()) return;
    block(buf_.data());
    buffered_ = 0;
  }
  for (; n >= 64; p += 64, n -= 64) block(p);
  std::memcpy(buf_.data(), p, n);
  buffered_ = n;
}

std::string Sha256::hex() const {
  // §5.1.1: a 1 bit, zeros to 56 bytes mod 64, the message length in bits (64-bit big-endian).
  Sha256 copy = *this;
  const uint64_t bits = total_ * 8;
  const uint8_t one = 0x80, zero = 0;
  copy.update(&one, 1);
  while (copy.buffered_ != 56) copy.update(&zero, 1);
  uint8_t len[8];
  for (unsigned i = 0; i < 8; ++i) len[i] = uint8_t(bits >> (56 - 8 * i));
  copy.update(len, 8);
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (uint32_t v : copy.h_)
    for (int s = 28; s >= 0; s -= 4) out.push_back(digits[(v >> s) & 15]);
  return out;
}

}  // namespace dpusim::pcie
