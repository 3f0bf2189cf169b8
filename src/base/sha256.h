#pragma once
// SHA-256 (FIPS 180-4) through OpenSSL's EVP interface: streaming, for hashing inputs as read.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace preflight {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view bytes);
  // Lower-case hex digest. The hasher may not be updated afterwards.
  std::string HexDigest();
  // The digest of the bytes so far; the hasher goes on (a copy of its state is finished).
  std::string HexDigestSoFar() const;

  static std::string Hex(std::string_view bytes);  // One-shot convenience.

 private:
  void* ctx_;  // EVP_MD_CTX*, kept opaque so that callers need no OpenSSL headers.
};

}  // namespace preflight
