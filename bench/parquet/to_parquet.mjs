// Writes a JSONL pool ({"id", "text", ...string fields}) as Parquet with arrow-rs (parquet-wasm),
// its default page and dictionary sizes, for bench/parquet/run.sh. Needs the fixture script's
// packages: (cd tests/parquet/fixtures && npm ci).
//   node bench/parquet/to_parquet.mjs POOL.jsonl OUT.parquet snappy|zstd|gzip|uncompressed [v1|v2]
import { readFileSync, writeFileSync } from 'fs';

const modules = new URL('../../tests/parquet/fixtures/node_modules/', import.meta.url);
const arrow = await import(new URL('apache-arrow/Arrow.node.mjs', modules));
const pw = await import(new URL('parquet-wasm/esm/parquet_wasm.js', modules));
pw.initSync({ module: readFileSync(new URL('parquet-wasm/esm/parquet_wasm_bg.wasm', modules)) });

const [src, out, codecName = 'snappy', version = 'v1'] = process.argv.slice(2);
const rows = readFileSync(src, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l));
const keys = Object.keys(rows[0]);
const columns = {};
for (const k of keys) columns[k] = arrow.vectorFromArray(rows.map((r) => r[k] ?? null), new arrow.Utf8());
const table = new arrow.Table(columns);
const codec = { snappy: pw.Compression.SNAPPY, zstd: pw.Compression.ZSTD, gzip: pw.Compression.GZIP,
  uncompressed: pw.Compression.UNCOMPRESSED }[codecName];
const props = new pw.WriterPropertiesBuilder()
  .setCompression(codec)
  .setWriterVersion(version === 'v2' ? pw.WriterVersion.V2 : pw.WriterVersion.V1)
  .setMaxRowGroupSize(10000)
  .build();
const bytes = pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(table, 'stream')), props);
writeFileSync(out, bytes);
console.error(`to_parquet: ${rows.length} rows, ${keys.join(', ')} -> ${out} (${bytes.length} bytes)`);
