/**
 * fileText is a file's text: as it is, or, when it is gzipped (a ULOG or a
 * log rotated and compressed, ULOG.120126.gz, export.csv.gz; found by its
 * first two bytes, whatever its name), what it decompresses to, as the CLI
 * reads it. Damaged or cut-short gzip data is an error naming the file.
 */
export async function fileText(f: Blob & { name?: string }): Promise<string> {
  const head = new Uint8Array(await f.slice(0, 2).arrayBuffer());
  if (head.length < 2 || head[0] !== 0x1f || head[1] !== 0x8b) return f.text();
  try {
    return await new Response(f.stream().pipeThrough(new DecompressionStream("gzip"))).text();
  } catch {
    throw new Error(`${f.name ?? "the file"}: the gzip data is damaged or ends short of its end (a file cut short, or copied while written)`);
  }
}
