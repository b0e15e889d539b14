// The refusal of a bad platform document: the JSON path of the bad field ("$.topology.options.
// num-ep") and the reason. Every parser of the document throws it, the platform's and each
// device model's for its own options, so a user always learns where the problem is.
#pragma once

#include <stdexcept>
#include <string>

namespace dpusim::platform {

class DocError : public std::runtime_error {
 public:
  DocError(const std::string& path, const std::string& reason)
      : std::runtime_error(path + ": " + reason), path_(path), reason_(reason) {}
  const std::string& path() const { return path_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string path_, reason_;
};

}  // namespace dpusim::platform
