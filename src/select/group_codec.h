#pragma once
// Byte encodings for what the processes of a group exchange (group.h moves bytes only): fixed-
// width integers, lists of strings, scored documents. Alone (a group of one) each is the identity.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "select/group.h"
#include "select/selector.h"

namespace preflight::select {

// Appends / reads a native-endian 64-bit integer (all processes run on one kind of machine).
void PutU64(std::string& out, uint64_t value);
uint64_t GetU64(const std::string& in, size_t pos);

// The leader's values, on every process. Collective.
Result<std::vector<uint64_t>> BroadcastU64(SelectionGroup& group,
                                           const std::vector<uint64_t>& values);

// Length-prefixed strings, concatenated; Unpack fails on a truncated message.
std::string PackStrings(const std::vector<std::string>& strings);
Result<std::vector<std::string>> UnpackStrings(const std::string& bytes);

// Every process's strings, concatenated in rank order, on the leader (empty elsewhere).
// Collective.
Result<std::vector<std::string>> GatherStrings(SelectionGroup& group,
                                               const std::vector<std::string>& mine);

// The group's `count` highest (or lowest) scored documents from each process's own, ordered as
// one process orders them: by score, ties by index. On the leader. Collective.
Result<std::vector<ScoredDoc>> MergeExplained(SelectionGroup& group,
                                              const std::vector<ScoredDoc>& mine, size_t count,
                                              bool lowest);

}  // namespace preflight::select
