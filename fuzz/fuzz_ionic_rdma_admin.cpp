// Harness: the ionic NIC's RDMA admin-queue parsers (models/ionic/rdma_decode.h), on the bytes a
// guest writes: the RDMA devcmds 50-53 and the admin WQEs with their bodies. The input's first
// byte is the number of strides the doorbell announced; the rest is an admin ring of 64-byte
// strides, walked as the device walks it. Rules: a WQE occupies ceil((4 + len) / 64) strides,
// at most 4 and never more than announced (and at least one); each body decoder accepts
// exactly the bodies at least its command's minimum long, and its 24-bit ids and 12-bit access
// flags stay in range; the RoCE template parser reads only its bytes and names an IPv4 GID as
// ::ffff:a.b.c.d; nothing crashes.
// link: dpusim_ionic
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ionic/le_bytes.h"
#include "ionic/rdma_decode.h"

extern "C" int sc_main(int, char**) { return 0; }

namespace {

using namespace dpusim::ionic;

template <typename T>
void body(bool (*decode)(const uint8_t*, uint16_t, T*), const std::vector<uint8_t>& b, uint16_t len, uint16_t min,
          T* out) {
  if (decode(b.data(), len, out) != (len >= min)) std::abort();
}

void check_body(uint8_t op, const std::vector<uint8_t>& b, uint16_t len) {
  AdminCreateCq cq;
  body(decode_admin_create_cq, b, len, ADMIN_CREATE_CQ_LEN, &cq);
  if (cq.cq_id > 0xffffff) std::abort();
  AdminCreateQp qp;
  body(decode_admin_create_qp, b, len, ADMIN_CREATE_QP_LEN, &qp);
  if (qp.qp_id > 0xffffff || qp.type > 15) std::abort();
  AdminCreateMr mr;
  body(decode_admin_create_mr, b, len, ADMIN_CREATE_MR_LEN, &mr);
  if (mr.access > 0x0fff) std::abort();
  AdminModifyQp mq;
  body(decode_admin_modify_qp, b, len, ADMIN_MODIFY_QP_LEN, &mq);
  if (mq.qp_id > 0xffffff || mq.to_state > 15 || mq.from_state > 15) std::abort();
  AdminQueryQp qq;
  body(decode_admin_query_qp, b, len, ADMIN_QUERY_QP_LEN, &qq);
  if (qq.qp_id > 0xffffff) std::abort();
  AdminCreateAh ah;
  body(decode_admin_create_ah, b, len, ADMIN_CREATE_AH_LEN, &ah);
  (void)op;
  // The body as a RoCE template, read from an exact-size copy so that ASan sees any overread.
  const size_t n = std::min<size_t>(len, b.size());
  std::vector<uint8_t> tmpl(b.begin(), b.begin() + n);
  RoceDest dest;
  std::string why;
  if (parse_roce_template(tmpl.data(), tmpl.size(), &dest, &why)) {
    static const uint8_t v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    size_t off = 12;
    if (n >= 14 && tmpl[12] == 0x81 && tmpl[13] == 0x00) off += 4;
    if (tmpl[off] == 0x08 && tmpl[off + 1] == 0x00 && std::memcmp(dest.dgid.data(), v4, 12) != 0) std::abort();
  } else if (why.empty()) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const unsigned announced = data[0];
  const uint8_t* ring = data + 1;
  const size_t ring_bytes = size - 1;
  // The first 64 bytes also as an RDMA devcmd.
  std::array<uint8_t, 64> cmd{};
  std::memcpy(cmd.data(), ring, std::min<size_t>(ring_bytes, cmd.size()));
  const RdmaQueueCmd c = decode_rdma_queue_cmd(cmd.data());
  if (c.qid > 0xffffff || c.opcode != cmd[0]) std::abort();

  const size_t slots = ring_bytes / ADMIN_WQE_STRIDE;
  size_t slot = 0;
  unsigned pending = announced;
  while (slot < slots && pending > 0) {
    const uint8_t* wqe = ring + slot * ADMIN_WQE_STRIDE;
    const uint16_t len = get_le16(wqe + ADMIN_WQE_LEN);
    const unsigned strides = admin_wqe_strides(len, pending);
    const unsigned want = (4u + len + 63) / 64;
    if (strides < 1 || strides > ADMIN_WQE_MAX_STRIDES || strides > pending) std::abort();
    if (want <= ADMIN_WQE_MAX_STRIDES && want <= pending && strides != want) std::abort();
    // The body the device hands the decoders: the strides' bytes, zero past them, at least 64.
    std::vector<uint8_t> b(std::max<size_t>(len, 64), 0);
    const size_t have = std::min<size_t>(size_t(strides) * ADMIN_WQE_STRIDE, ring_bytes - slot * ADMIN_WQE_STRIDE);
    if (have > ADMIN_WQE_BODY)
      std::memcpy(b.data(), wqe + ADMIN_WQE_BODY, std::min<size_t>({have - ADMIN_WQE_BODY, b.size(), size_t(len)}));
    check_body(wqe[ADMIN_WQE_OP], b, len);
    slot += strides;
    pending -= strides;
  }
  return 0;
}
