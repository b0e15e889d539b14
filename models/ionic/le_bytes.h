// Fields in byte buffers: the ionic Ethernet interface is little-endian (ionic_if.h's
// __le16/__le32/__le64), the RDMA work requests, completions and events big-endian
// (ionic_fw.h's __be16/__be32/__be64); the structures are packed, so every field is read and
// written byte by byte rather than through a cast, with the accessors of tlm/bytes.h.
#pragma once

#include "tlm/bytes.h"

namespace dpusim::ionic {

using bytes::get_be16;
using bytes::get_be32;
using bytes::get_be64;
using bytes::get_le16;
using bytes::get_le32;
using bytes::get_le64;
using bytes::put_be16;
using bytes::put_be32;
using bytes::put_be64;
using bytes::put_le16;
using bytes::put_le32;
using bytes::put_le64;

}  // namespace dpusim::ionic
