#include <algorithm>
#include <cstring>

#include "ionic/dma_io.h"
#include "ionic/ionic_timing.h"
#include "ionic/le_bytes.h"
#include "ionic/rdma_admin.h"
#include "tlm/hex.h"

namespace dpusim::ionic {

using pcie::hex;

void RdmaAdmin::hold_cq(const RdmaQueueCmd& c) {
  pending_cq_ = c;
  pending_cq_valid_ = true;
}

const char* RdmaAdmin::create(const RdmaQueueCmd& c) {
  if (aqs_.size() >= IONIC_RDMA_MAX_AQ) return "more than 4 admin queues";
  if (!pending_cq_valid_) return "no CREATE_CQ before it";
  Aq aq;
  aq.id = uint32_t(aqs_.size());
  aq.cq_id = pending_cq_.qid;
  aq.eq_id = pending_cq_.cid;
  aq.ring = c.dma_addr;
  aq.depth = 1u << (c.depth_log2 & 31);
  aq.cq_ring = pending_cq_.dma_addr;
  aq.cq_depth = 1u << (pending_cq_.depth_log2 & 31);
  aqs_.push_back(aq);
  pending_cq_valid_ = false;
  return nullptr;
}

void RdmaAdmin::clear() {
  aqs_.clear();
  pending_cq_valid_ = false;
}

bool RdmaAdmin::doorbell(uint32_t a, uint16_t p_index) {
  if (a >= aqs_.size()) return false;
  aqs_[a].prod = p_index % aqs_[a].depth;
  service(a);
  return true;
}

void RdmaAdmin::service(unsigned a) {
  if (aqs_[a].busy) return;
  aqs_[a].busy = true;
  next(a);
}

void RdmaAdmin::next(unsigned a) {
  if (a >= aqs_.size()) return;  // a RESET_LIF removed it meanwhile
  Aq& aq = aqs_[a];
  const uint32_t pending = (aq.prod + aq.depth - aq.cons) % aq.depth;
  if (pending == 0) {
    // Decided at the device's time (see EthQueues::tx_next).
    if (ports_.io.ahead()) return ports_.io.at_local_time([this, a] { next(a); });
    aq.busy = false;
    return;
  }
  ports_.io.after(ports_.ctx.ps(timing::adminq_cmd_ps), [this, a, pending] {
    if (a >= aqs_.size()) return;
    Aq& aq = aqs_[a];
    // The strides of one WQE, read in order (wrapping at the ring's end).
    const uint32_t slot = aq.cons;
    std::vector<BusRun> first{{aq.ring + uint64_t(slot) * ADMIN_WQE_STRIDE, ADMIN_WQE_STRIDE}};
    ports_.io.gather(first, [this, a, slot, pending](Bytes head, bool ok) {
      if (a >= aqs_.size()) return;
      Aq& aq = aqs_[a];
      if (!ok) {
        aq.busy = false;  // no command, no completion: the queue waits for the next doorbell
        ports_.ctx.event(ports_.path, "rdma_admin_error").u64("aq", a).u64("slot", slot).str("reason", "WQE read failed");
        return;
      }
      const uint8_t op = head[ADMIN_WQE_OP];
      const uint16_t len = get_le16(&head[ADMIN_WQE_LEN]);
      const unsigned strides = admin_wqe_strides(len, pending);
      std::vector<BusRun> rest;
      for (unsigned i = 1; i < strides; ++i)
        rest.push_back({aq.ring + uint64_t((slot + i) % aq.depth) * ADMIN_WQE_STRIDE, ADMIN_WQE_STRIDE});
      ports_.io.gather(rest, [this, a, slot, op, len, strides, head](Bytes more, bool ok) mutable {
        if (a >= aqs_.size()) return;
        if (!ok) {
          aqs_[a].busy = false;
          ports_.ctx.event(ports_.path, "rdma_admin_error").u64("aq", a).u64("slot", slot).str("reason", "WQE read failed");
          return;
        }
        head.insert(head.end(), more.begin(), more.end());
        // The body as far as it was read; what lies past the strides reads as zero.
        Bytes body(std::max<size_t>(len, 64), 0);
        std::copy_n(head.begin() + ADMIN_WQE_BODY, std::min<size_t>(len, head.size() - ADMIN_WQE_BODY), body.begin());
        dispatch(op, body, len, [this, a, slot, op, strides](uint8_t status, uint32_t resp_len) {
          if (a >= aqs_.size()) return;
          Aq& aq = aqs_[a];
          ++commands_;
          ports_.ctx.event(ports_.path, "rdma_admin").u64("aq", a).u64("slot", slot).str("op", ionic_admin_op_name(op))
              .u64("strides", strides).u64("status", status);
          post_cqe(aq, uint16_t(slot), op, status, resp_len);
          ports_.cq.post_eqe(aq.eq_id, aq.cq_id);
          aq.cons = (aq.cons + strides) % aq.depth;
          next(a);
        });
      });
    });
  });
}

void RdmaAdmin::post_cqe(Aq& aq, uint16_t slot, uint8_t op, uint8_t status, uint32_t resp_len) {
  uint8_t cqe[IONIC_V1_CQE_BYTES] = {};
  put_be16(cqe + CQE_ADMIN_CMD_IDX, slot);
  cqe[CQE_ADMIN_CMD_OP] = op;
  put_be32(cqe + CQE_STATUS_LENGTH, status ? uint32_t(status) << 24 : resp_len);
  put_be32(cqe + CQE_QID_TYPE_FLAGS, aq.id << IONIC_V1_CQE_QID_SHIFT |
                                         IONIC_V1_CQE_TYPE_ADMIN << IONIC_V1_CQE_TYPE_SHIFT |
                                         (status ? IONIC_V1_CQE_ERROR : 0) | (aq.cq_color ? IONIC_V1_CQE_COLOR : 0));
  ports_.io.write(aq.cq_ring + uint64_t(aq.cq_prod % aq.cq_depth) * IONIC_V1_CQE_BYTES, cqe, sizeof cqe);
  if (++aq.cq_prod % aq.cq_depth == 0) aq.cq_color = !aq.cq_color;
}

void RdmaAdmin::dispatch(uint8_t op, const Bytes& body, uint16_t len, Done done) {
  const uint8_t* b = body.data();
  switch (op) {
    case IONIC_V1_ADMIN_CREATE_CQ: return create_cq(body, len, std::move(done));
    case IONIC_V1_ADMIN_CREATE_QP: return create_qp(body, len, std::move(done));
    case IONIC_V1_ADMIN_CREATE_MR: return create_mr(body, len, std::move(done));
    case IONIC_V1_ADMIN_MODIFY_QP: return modify_qp(body, len, std::move(done));
    case IONIC_V1_ADMIN_QUERY_QP: return query_qp(body, len, std::move(done));
    case IONIC_V1_ADMIN_CREATE_AH: return create_ah(body, len, std::move(done));
    case IONIC_V1_ADMIN_DESTROY_MR:
      if (len < ADMIN_DESTROY_LEN) return done(0, 0);
      return done(ports_.res.mrs.remove(get_le32(b)) ? 0 : 1, 0);  // an unknown key: status 1 (a leak)
    case IONIC_V1_ADMIN_DESTROY_CQ:
      if (len >= ADMIN_DESTROY_LEN) ports_.cq.destroy_cq(get_le32(b));
      return done(0, 0);  // unknown: success
    case IONIC_V1_ADMIN_DESTROY_QP:
      if (len >= ADMIN_DESTROY_LEN) ports_.res.qps.erase(get_le32(b));
      return done(0, 0);
    case IONIC_V1_ADMIN_DESTROY_AH:
      if (len < ADMIN_DESTROY_LEN) return done(1, 0);
      ports_.res.ahs.erase(get_le32(b) & 0xffffff);
      return done(0, 0);
    case IONIC_V1_ADMIN_NOOP:
    case IONIC_V1_ADMIN_STATS_HDRS:
    case IONIC_V1_ADMIN_STATS_VALS:
    case IONIC_V1_ADMIN_DEBUG:
    case IONIC_V1_ADMIN_QUERY_AH:
    case IONIC_V1_ADMIN_MODIFY_DCQCN:
    case IONIC_V1_ADMIN_QP_STATS_HDRS:
    case IONIC_V1_ADMIN_QP_STATS_VALS:
      return done(0, 0);  // stubs, as rocm-ernic's
    default:
      return done(1, 0);  // RSVD_7 (resize CQ) and everything unknown
  }
}

void RdmaAdmin::read_template(uint64_t dma, uint32_t len, std::function<void(bool, RoceDest)> done) {
  if (len < 14 || len > 128 || dma == 0) return done(false, RoceDest{});
  ports_.io.gather({{dma, len}}, [this, done = std::move(done)](Bytes hdr, bool ok) {
    RoceDest dest;
    std::string why;
    if (!ok) return done(false, dest);
    if (!parse_roce_template(hdr.data(), hdr.size(), &dest, &why)) {
      ports_.ctx.event(ports_.path, "rdma_template_unparsed").str("reason", why);
      return done(false, dest);
    }
    done(true, dest);
  });
}

// ---- The handlers ---------------------------------------------------------------------------

void RdmaAdmin::create_cq(const Bytes& body, uint16_t len, Done done) {
  AdminCreateCq c;
  if (!decode_admin_create_cq(body.data(), len, &c)) return done(1, 0);
  ports_.cq.fresh_cq(c.cq_id).eq_id = c.eq_id;
  const unsigned stride = c.ring.stride_log2 ? c.ring.stride_log2 : 5;
  std::string why;
  if (stride < 5 || stride > 16) why = "stride 2^" + std::to_string(stride) + " outside 2^5..2^16";
  else if (c.ring.depth_log2 > 24) why = "depth 2^" + std::to_string(c.ring.depth_log2) + " above 2^24";
  if (!why.empty()) {
    // rocm-ernic answers 0 and leaves the CQ unusable: its completions are lost.
    ports_.ctx.event(ports_.path, "rdma_cq_unusable").u64("cq", c.cq_id).str("reason", why);
    return done(0, 0);
  }
  load_buf(ports_.io, c.ring.buf, 0, [this, c, stride, done = std::move(done)](bool ok, GuestBuf buf, std::string why) {
    RdmaCompletions::Cq* found = ports_.cq.find_cq(c.cq_id);
    if (!found) return done(0, 0);
    if (!ok) {
      ports_.ctx.event(ports_.path, "rdma_cq_unusable").u64("cq", c.cq_id).str("reason", why);
      return done(0, 0);
    }
    RdmaCompletions::Cq& cq = *found;
    cq.buf = std::move(buf);
    cq.depth = 1u << c.ring.depth_log2;
    cq.stride_log2 = stride;
    cq.usable = true;
    ports_.ctx.event(ports_.path, "rdma_cq").u64("cq", c.cq_id).u64("eq", c.eq_id).u64("depth", cq.depth)
        .u64("stride_log2", stride);
    done(0, 0);
  });
}

void RdmaAdmin::create_qp(const Bytes& body, uint16_t len, Done done) {
  AdminCreateQp c;
  if (!decode_admin_create_qp(body.data(), len, &c)) return done(1, 0);
  if (!ports_.cq.has_cq(c.sq_cq_id) || !ports_.cq.has_cq(c.rq_cq_id)) {
    ports_.ctx.event(ports_.path, "rdma_qp_refused").u64("qp", c.qp_id).str("reason", "unknown CQ");
    return done(1, 0);
  }
  if (c.qp_id >= IONIC_RDMA_MAX_QP) {
    ports_.ctx.event(ports_.path, "rdma_qp_refused").u64("qp", c.qp_id).str("reason", "qp id above 32767");
    return done(0, 0);
  }
  load_buf(ports_.io, c.sq.buf, 0, [this, c, done = std::move(done)](bool ok, GuestBuf sq, std::string why) mutable {
    if (!ok) {
      ports_.ctx.event(ports_.path, "rdma_qp_refused").u64("qp", c.qp_id).str("reason", "SQ: " + why);
      return done(0, 0);
    }
    load_buf(ports_.io, c.rq.buf, 0, [this, c, sq = std::move(sq), done = std::move(done)](bool ok, GuestBuf rq, std::string why) {
      if (!ok) {
        ports_.ctx.event(ports_.path, "rdma_qp_refused").u64("qp", c.qp_id).str("reason", "RQ: " + why);
        return done(0, 0);
      }
      RdmaQp qp;
      qp.gen = ++ports_.res.qp_gen;
      qp.type = c.type;
      qp.gsi = c.qp_id == IONIC_GSI_QPID;
      qp.sq = sq;
      qp.rq = std::move(rq);
      qp.sq_depth = 1u << (c.sq.depth_log2 & 31);
      qp.rq_depth = 1u << (c.rq.depth_log2 & 31);
      qp.sq_stride_log2 = c.sq.stride_log2 & 31;
      qp.rq_stride_log2 = c.rq.stride_log2 & 31;
      qp.sq_cq = c.sq_cq_id;
      qp.rq_cq = c.rq_cq_id;
      ports_.res.qps[c.qp_id] = std::move(qp);
      ports_.ctx.event(ports_.path, "rdma_qp").u64("qp", c.qp_id).u64("type", c.type).u64("sq_cq", c.sq_cq_id)
          .u64("rq_cq", c.rq_cq_id).u64("sq_depth", 1u << (c.sq.depth_log2 & 31));
      done(0, 0);
    });
  });
}

void RdmaAdmin::create_mr(const Bytes& body, uint16_t len, Done done) {
  AdminCreateMr c;
  if (!decode_admin_create_mr(body.data(), len, &c)) return done(0, 0);  // short: success, nothing done
  if (!ports_.res.mrs.find(c.key) && ports_.res.mrs.size() >= IONIC_RDMA_MAX_MR) {
    ports_.ctx.event(ports_.path, "rdma_mr_refused").hex("key", c.key).str("reason", "the region table is full (1024)");
    return done(1, 0);
  }
  if (c.buf.map_count > IONIC_RDMA_MAX_MAP_COUNT) {
    ports_.ctx.event(ports_.path, "rdma_mr_refused").hex("key", c.key).str("reason", "page table over 65536 entries");
    return done(1, 0);
  }
  load_buf(ports_.io, c.buf, c.va, [this, c, done = std::move(done)](bool ok, GuestBuf buf, std::string why) {
    if (!ok) {
      ports_.ctx.event(ports_.path, "rdma_mr_refused").hex("key", c.key).str("reason", why);
      return done(0, 0);  // rocm-ernic: allocated, never mapped
    }
    if (!ports_.res.mrs.put(MemRegion{c.key, c.va, c.length, c.access, std::move(buf)})) return done(1, 0);
    ports_.ctx.event(ports_.path, "rdma_mr").hex("key", c.key).hex("va", c.va).u64("len", c.length).hex("access", c.access);
    done(0, 0);
  });
}

void RdmaAdmin::modify_qp(const Bytes& body, uint16_t len, Done done) {
  AdminModifyQp c;
  if (!decode_admin_modify_qp(body.data(), len, &c)) return done(0, 0);
  if (!ports_.res.qps.count(c.qp_id)) return done(1, 0);
  read_template(c.template_dma, c.ah_id_len >> 24, [this, c, done = std::move(done)](bool parsed, RoceDest dest) {
    auto it = ports_.res.qps.find(c.qp_id);
    if (it == ports_.res.qps.end()) return done(1, 0);
    RdmaQp& qp = it->second;
    if (c.attr_mask & IB_QP_DEST_QPN) {
      uint32_t node = UINT32_MAX;
      if (!ports_.node_of(parsed ? dest.dgid : std::array<uint8_t, 16>{}, &node)) {
        ports_.ctx.event(ports_.path, "rdma_qp_refused").u64("qp", c.qp_id)
            .str("reason", parsed ? "no mesh node owns the destination GID" : "no destination address in the template");
        return done(1, 0);
      }
      qp.dest_valid = true;
      qp.dest_qp = c.qkey_dest_qpn;
      qp.dest_node = node;
    }
    qp.state = c.to_state;
    qp.access = c.access;
    qp.sq_psn = c.sq_psn;
    qp.rq_psn = c.rq_psn;
    if (c.pmtu) qp.pmtu = c.pmtu;
    {
      auto e = ports_.ctx.event(ports_.path, "rdma_modify_qp");
      e.u64("qp", c.qp_id).u64("state", c.to_state).hex("attr_mask", c.attr_mask);
      if (qp.dest_valid) {
        e.u64("dest_qp", qp.dest_qp);
        if (qp.dest_node == UINT32_MAX) e.str("dest_node", "local");
        else e.u64("dest_node", qp.dest_node);
      }
    }
    done(0, 0);
  });
}

void RdmaAdmin::query_qp(const Bytes& body, uint16_t len, Done done) {
  AdminQueryQp c;
  if (!decode_admin_query_qp(body.data(), len, &c)) return done(0, 0);
  auto it = ports_.res.qps.find(c.qp_id);
  if (it == ports_.res.qps.end()) return done(1, 0);
  const RdmaQp& qp = it->second;
  uint16_t flags = 0;
  if (qp.access & (1u << 1)) flags |= 1u << 0;  // IB_ACCESS_REMOTE_WRITE -> IONIC_QPF_REMOTE_WRITE
  if (qp.access & (1u << 2)) flags |= 1u << 1;  // REMOTE_READ
  if (qp.access & (1u << 3)) flags |= 1u << 2;  // REMOTE_ATOMIC
  uint8_t sq[20] = {}, rq[12] = {};
  put_be16(sq + 2, flags);
  put_be32(sq + 8, qp.dest_qp);
  put_be32(sq + 16, qp.rq_psn & 0xffffff);
  // The path MTU as the driver sent it (log2 of the MTU, ib_mtu + 7; 10, 1024 bytes, until
  // then), which the driver turns back into ib_mtu by subtracting 7.
  rq[0] = uint8_t((qp.state & 0x0f) << 4 | (qp.pmtu & 0x0f));
  rq[1] = 0x77;  // retry 7, rnr 7
  rq[2] = 1;     // rrq depth log2: one outstanding read or atomic
  rq[3] = 1;
  put_be32(rq + 4, qp.sq_psn & 0xffffff);
  put_be16(rq + 8, flags);
  if (c.sq_dma) ports_.io.write(c.sq_dma, sq, sizeof sq);
  if (c.rq_dma) ports_.io.write(c.rq_dma, rq, sizeof rq);
  done(0, 0);
}

void RdmaAdmin::create_ah(const Bytes& body, uint16_t len, Done done) {
  AdminCreateAh c;
  if (!decode_admin_create_ah(body.data(), len, &c)) return done(1, 0);
  read_template(c.hdr_dma, c.hdr_len, [this, c, done = std::move(done)](bool parsed, RoceDest dest) {
    // An unparsable template is still accepted (the handle then has no address).
    RdmaAh ah;
    ah.has_dest = parsed;
    ah.dest = dest;
    if (parsed && !ports_.node_of(dest.dgid, &ah.node)) ah.node = UINT32_MAX;
    ports_.res.ahs[c.ah_id] = ah;
    done(0, 0);
  });
}

}  // namespace dpusim::ionic
