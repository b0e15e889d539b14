// The test endpoint as a kind of the generic switch's slots: {"kind": "test"} (no options).
#pragma once

#include "device/endpoint_kind.h"

namespace dpusim::testep {

platform::EndpointKind test_endpoint_kind();

}  // namespace dpusim::testep
