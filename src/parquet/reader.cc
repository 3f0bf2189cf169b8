#include "parquet/reader.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>

#include "parquet/chunk.h"
#include "parquet/codec.h"
#include "parquet/column.h"
#include "parquet/format.h"
#include "parquet/json_out.h"
#include "parquet/metadata.h"

namespace preflight::parquet {

namespace {

constexpr char kCodecsRead[] = "UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4, LZ4_RAW and BROTLI";

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

std::string ColumnList(const Schema& schema) {
  std::string out;
  for (size_t i = 0; i < schema.top_level.size(); ++i) {
    if (i > 0) out += ", ";
    out += schema.top_level[i];
  }
  return out.empty() ? "(none)" : out;
}

// The flat leaf called `name`, or a refusal: no such column (listing them), or a nested one.
Result<int> FindColumn(const Schema& schema, const std::string& file, const std::string& name,
                       const char* role) {
  for (const Column& c : schema.leaves) {
    if (c.name == name && !c.nested) return c.leaf;
  }
  bool nested = false;
  for (size_t i = 0; i < schema.top_level.size(); ++i) {
    nested = nested || (schema.top_level[i] == name && schema.top_level_is_group[i]);
  }
  for (const Column& c : schema.leaves) nested = nested || c.name == name;
  if (nested) {
    return Status::InvalidArgument(file + ": the " + role + " column " + Quoted(name) +
                                   " is nested or repeated (a struct, list or map); preflight "
                                   "reads " +
                                   role + "s from a flat column");
  }
  return Status::InvalidArgument(file + ": no column " + Quoted(name) + " for the " + role +
                                 "; the file's columns are: " + ColumnList(schema));
}

}  // namespace

struct Reader::State {
  ReadRequest request;
  InputFile file;
  FileMeta meta;
  Schema schema;
  uint64_t data_end = 0;
  std::vector<uint64_t> bounds;     // progress: where each row group starts (bounds[0] unused)
  std::vector<uint64_t> first_row;  // the file-wide index of each row group's first row
  std::vector<std::unique_ptr<ColumnReader>> readers;  // one per output column
  std::vector<Value> values;
  int group = -1, first_group = 0, end_group = 0;
  uint64_t rows_left = 0, row_in_group = 0;
  std::string id_text;
  Status error;

  std::string Where(int g, const Column& c) const {
    return file.name() + ": row group " + std::to_string(g) + ", column " + Quoted(c.name);
  }
  Result<ChunkSpec> Chunk(int g, const Column& c);
  void ComputeBounds();
  uint64_t Start(int g) const;
  uint64_t End(int g) const;
};

Result<ChunkSpec> Reader::State::Chunk(int g, const Column& c) {
  const RowGroupMeta& group_meta = meta.row_groups[g];
  const ColumnChunkMeta& m = group_meta.columns[c.leaf];
  ChunkSpec spec;
  spec.where = Where(g, c);
  if (!m.file_path.empty()) {
    return Status::InvalidArgument(spec.where + ": its data is in another file (" + m.file_path +
                                   "), which preflight does not read");
  }
  if (m.encrypted) {
    return Status::InvalidArgument(spec.where +
                                   ": encrypted; preflight does not read encrypted "
                                   "files");
  }
  if (!m.has_meta_data)
    return Status::Corruption(spec.where + ": no column metadata in the footer");
  std::string path;
  for (const std::string& part : m.path_in_schema) path += (path.empty() ? "" : ".") + part;
  if (m.type != c.physical || path != c.name) {
    return Status::Corruption(spec.where + ": the footer's column chunk (" + Quoted(path) + ", " +
                              PhysicalTypeName(m.type) + ") does not match the schema");
  }
  if (!CodecSupported(m.codec)) {
    return Status::InvalidArgument(spec.where + ": compressed with " + CodecName(m.codec) +
                                   ", which preflight does not read (it reads " + kCodecsRead +
                                   ")");
  }
  uint64_t begin = static_cast<uint64_t>(m.data_page_offset);
  if (m.dictionary_page_offset > 0 && m.dictionary_page_offset < m.data_page_offset) {
    begin = static_cast<uint64_t>(m.dictionary_page_offset);
  }
  const uint64_t length = static_cast<uint64_t>(m.total_compressed_size);
  if (m.data_page_offset < 4 || m.total_compressed_size < 0 || begin > data_end ||
      length > data_end - begin) {
    return Status::Corruption(
        spec.where + ": its bytes (" + std::to_string(m.total_compressed_size) + " at byte " +
        std::to_string(m.data_page_offset) + ") lie outside the file's data (bytes 4 to " +
        std::to_string(data_end) + ")");
  }
  spec.file = &file;
  spec.codec = m.codec;
  spec.begin = begin;
  spec.end = begin + length;
  spec.max_page_bytes = request.max_page_bytes;
  spec.verify_crc = request.verify_crc;
  return spec;
}

void Reader::State::ComputeBounds() {
  const size_t n = meta.row_groups.size();
  bounds.assign(n + 1, 0);
  for (size_t g = 1; g < n; ++g) {
    uint64_t start = data_end;
    for (const ColumnChunkMeta& m : meta.row_groups[g].columns) {
      int64_t at = m.data_page_offset;
      if (m.dictionary_page_offset > 0 && m.dictionary_page_offset < at)
        at = m.dictionary_page_offset;
      if (at >= 0) start = std::min(start, static_cast<uint64_t>(at));
    }
    bounds[g] = std::max(start, bounds[g - 1]);
  }
}

Reader::Reader(std::unique_ptr<State> state) : state_(std::move(state)) {}
Reader::~Reader() = default;

Result<std::unique_ptr<Reader::State>> Reader::LoadFooter(const std::string& path,
                                                          const ReadRequest& request) {
  auto state = std::make_unique<State>();
  State& s = *state;
  s.request = request;
  const std::string name = request.display_name.empty() ? path : request.display_name;
  PF_RETURN_IF_ERROR(s.file.Open(path, name));
  PF_RETURN_IF_ERROR(ReadFooter(s.file, &s.meta, &s.data_end));
  PF_ASSIGN_OR_RETURN(s.schema, BuildSchema(s.meta, name));
  uint64_t rows = 0;
  for (size_t g = 0; g < s.meta.row_groups.size(); ++g) {
    const RowGroupMeta& group = s.meta.row_groups[g];
    if (group.columns.size() != s.schema.leaves.size() || group.num_rows < 0) {
      return Status::Corruption(name + ": row group " + std::to_string(g) + " has " +
                                std::to_string(group.columns.size()) + " column chunks and " +
                                std::to_string(group.num_rows) + " rows; the schema has " +
                                std::to_string(s.schema.leaves.size()) + " columns");
    }
    s.first_row.push_back(rows);
    rows += static_cast<uint64_t>(group.num_rows);
  }
  s.first_row.push_back(rows);
  s.ComputeBounds();
  return state;
}

Result<std::unique_ptr<Reader>> Reader::Open(const std::string& path, const ReadRequest& request) {
  PF_ASSIGN_OR_RETURN(std::unique_ptr<State> state, LoadFooter(path, request));
  std::unique_ptr<Reader> reader(new Reader(std::move(state)));
  PF_RETURN_IF_ERROR(reader->Resolve());
  return reader;
}

Result<FileLayout> ReadLayout(const std::string& path, const std::string& display_name) {
  ReadRequest request;
  request.display_name = display_name;
  PF_ASSIGN_OR_RETURN(std::unique_ptr<Reader::State> state, Reader::LoadFooter(path, request));
  // A reader over no columns: its row-group arithmetic is what a reader of them would give.
  Reader reader(std::move(state));
  FileLayout layout;
  layout.file_bytes = reader.file_bytes();
  layout.num_rows = reader.num_rows();
  for (int g = 0; g < reader.num_row_groups(); ++g)
    layout.row_groups.push_back(reader.row_group(g));
  return layout;
}

}  // namespace preflight::parquet

namespace preflight::parquet {

// The text and id columns, the carried ones, a reader per output column, and every chunk they
// will read checked up front (codecs, bounds, encryption), so a refusal comes before any row.
Status Reader::Resolve() {
  State& s = *state_;
  const std::string& name = s.file.name();
  const ReadRequest& r = s.request;
  PF_ASSIGN_OR_RETURN(int text_leaf, FindColumn(s.schema, name, r.text_column, "text"));
  const Column& text = s.schema.leaves[text_leaf];
  if (text.kind != ValueKind::kString) {
    return Status::InvalidArgument(name + ": the text column " + Quoted(text.name) + " is " +
                                   text.type_name +
                                   ", not a string (BYTE_ARRAY with a STRING "
                                   "annotation); name the column that holds the text");
  }
  int id_leaf = -1;
  if (!r.id_column.empty()) {
    PF_ASSIGN_OR_RETURN(id_leaf, FindColumn(s.schema, name, r.id_column, "id"));
    const Column& id = s.schema.leaves[id_leaf];
    if (id.kind == ValueKind::kNone) {
      return Status::InvalidArgument(name + ": the id column " + Quoted(id.name) + " is " +
                                     id.type_name + ", which has no text form");
    }
  }
  for (const Column& c : s.schema.leaves) {
    const bool carried = r.carry_columns && !c.nested && c.kind != ValueKind::kNone;
    if (!carried && c.leaf != text_leaf && c.leaf != id_leaf) continue;
    if (c.leaf == text_leaf) text_slot_ = static_cast<int>(outputs_.size());
    if (c.leaf == id_leaf) id_slot_ = static_cast<int>(outputs_.size());
    outputs_.push_back(&c);
  }
  const int groups = static_cast<int>(s.meta.row_groups.size());
  s.first_group = std::clamp(r.first_row_group, 0, groups);
  s.end_group = std::clamp(r.end_row_group, s.first_group, groups);
  for (int g = s.first_group; g < s.end_group; ++g) {
    for (const Column* c : outputs_) {
      PF_ASSIGN_OR_RETURN(ChunkSpec spec, s.Chunk(g, *c));
      (void)spec;
    }
  }
  for (size_t i = 0; i < outputs_.size(); ++i)
    s.readers.push_back(std::make_unique<ColumnReader>());
  s.values.resize(outputs_.size());
  s.group = s.first_group - 1;
  return Status::Ok();
}

Status Reader::StartRowGroup(int group) {
  State& s = *state_;
  s.group = group;
  s.row_in_group = 0;
  s.rows_left = static_cast<uint64_t>(s.meta.row_groups[group].num_rows);
  for (size_t i = 0; i < outputs_.size(); ++i) {
    PF_ASSIGN_OR_RETURN(ChunkSpec spec, s.Chunk(group, *outputs_[i]));
    s.readers[i]->Start(*outputs_[i], spec, s.meta.row_groups[group].num_rows);
  }
  return Status::Ok();
}

Result<bool> Reader::Next(Row* row) {
  State& s = *state_;
  if (!s.error.ok()) return s.error;
  while (s.rows_left == 0) {
    if (s.group + 1 >= s.end_group) {
      s.group = s.end_group;
      return false;
    }
    s.error = StartRowGroup(s.group + 1);
    if (!s.error.ok()) return s.error;
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    s.error = s.readers[i]->Next(&s.values[i]);
    if (!s.error.ok()) return s.error;
  }
  --s.rows_left;
  Fill(row);
  ++s.row_in_group;
  return true;
}

void Reader::Fill(Row* row) {
  State& s = *state_;
  row->row_group = s.group;
  row->row_in_group = s.row_in_group;
  row->row_in_file = s.first_row[s.group] + s.row_in_group;
  row->values = std::span<const Value>(s.values);
  const Value& text = s.values[text_slot_];
  row->text_null = text.null;
  row->text = text.null ? std::string_view() : text.s;
  row->bad = {};
  if (text.null) {
    row->bad = "null text";
  } else if (s.request.validate_utf8 && !simdjson::validate_utf8(text.s.data(), text.s.size())) {
    row->bad = "invalid UTF-8";
  }
  row->has_id = id_slot_ >= 0 && !s.values[id_slot_].null;
  row->id = {};
  if (row->has_id) {
    s.id_text.clear();
    AppendIdText(*outputs_[id_slot_], s.values[id_slot_], &s.id_text);
    row->id = s.id_text;
  }
}

void Reader::AppendJson(const Row& row, std::string* out) const {
  out->push_back('{');
  for (size_t i = 0; i < outputs_.size() && i < row.values.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendJsonStringRepairing(outputs_[i]->name, out);
    out->push_back(':');
    const bool text = static_cast<int>(i) == text_slot_;
    if (text && !row.values[i].null && row.bad.empty() && state_->request.validate_utf8) {
      AppendJsonString(row.values[i].s, out);  // UTF-8 already checked: byte for byte
    } else {
      AppendJsonValue(*outputs_[i], row.values[i], out);
    }
  }
  out->push_back('}');
}

const std::vector<Column>& Reader::columns() const { return state_->schema.leaves; }
int Reader::num_row_groups() const { return static_cast<int>(state_->meta.row_groups.size()); }
uint64_t Reader::num_rows() const { return state_->first_row.back(); }
uint64_t Reader::rows_in_range() const {
  return state_->first_row[state_->end_group] - state_->first_row[state_->first_group];
}
const std::string& Reader::created_by() const { return state_->meta.created_by; }
uint64_t Reader::file_bytes() const { return state_->file.size(); }
uint64_t Reader::bytes_read() const { return state_->file.bytes_read(); }

// Row group g spans [Start(g), End(g + 1)): the first starts at 0, the last ends at the end.
uint64_t Reader::State::Start(int g) const {
  const int n = static_cast<int>(meta.row_groups.size());
  return g == 0 ? 0 : (g >= n ? file.size() : bounds[g]);
}

uint64_t Reader::State::End(int g) const {
  return g >= static_cast<int>(meta.row_groups.size()) ? file.size() : Start(g);
}

RowGroupInfo Reader::row_group(int group) const {
  const State& s = *state_;
  RowGroupInfo info;
  info.rows = s.first_row[group + 1] - s.first_row[group];
  info.first_row = s.first_row[group];
  info.begin = s.Start(group);
  info.end = s.End(group + 1);
  return info;
}

uint64_t Reader::progress_bytes() const {
  const State& s = *state_;
  auto start = [&](int g) { return s.Start(g); };
  auto end = [&](int g) { return s.End(g); };
  const uint64_t base = start(s.first_group);
  if (s.group < s.first_group) return 0;
  if (s.group >= s.end_group) return end(s.end_group) - base;
  const uint64_t rows = static_cast<uint64_t>(s.meta.row_groups[s.group].num_rows);
  const uint64_t span = end(s.group + 1) - start(s.group);
  const uint64_t within = rows == 0 ? 0
                                    : static_cast<uint64_t>(static_cast<double>(span) *
                                                            static_cast<double>(s.row_in_group) /
                                                            static_cast<double>(rows));
  return start(s.group) + within - base;
}

}  // namespace preflight::parquet
