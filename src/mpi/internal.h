#pragma once
// What ranks.cc and executor.cc share (built with MPI only).

#include <cstdint>
#include <string>

#include "base/status.h"

namespace preflight::mpi::internal {

// A Status as bytes (its kind, then its message) and back.
std::string EncodeStatus(const Status& status);
Status DecodeStatus(const std::string& bytes);

// OK everywhere if `local` is OK everywhere; else, everywhere, the lowest failing rank's failure
// with "rank K: " before its message. Adds the bytes this rank sent to *sent.
Status Agree(const Status& local, uint64_t* sent);

}  // namespace preflight::mpi::internal
