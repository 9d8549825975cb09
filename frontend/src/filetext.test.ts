import { describe, expect, it } from "vitest";
import { fileText } from "./filetext";

async function gzipped(s: string): Promise<ArrayBuffer> {
  return new Response(new Blob([s]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
}

const ulog = "100000.000.h!SRV.1.1.1: TRACE:at: { tpservice({\"A\"})\n100000.004.h!SRV.1.1.1: TRACE:at: } tpservice\n";

describe("fileText", () => {
  it("reads a plain file as it is, bytes that look like nothing else included", async () => {
    expect(await fileText(new File([ulog], "ULOG.120126"))).toBe(ulog);
    expect(await fileText(new File(["\x1f"], "one byte"))).toBe("\x1f");
  });
  it("reads a gzipped file as its text, whatever its name", async () => {
    const gz = await gzipped(ulog);
    expect(await fileText(new File([gz], "ULOG.120126.gz"))).toBe(ulog);
    expect(await fileText(new File([gz], "ulog.bin"))).toBe(ulog);
  });
  it("names a gzipped file cut short", async () => {
    const gz = await gzipped(ulog.repeat(50));
    await expect(fileText(new File([gz.slice(0, gz.byteLength / 2)], "ULOG.120126.gz"))).rejects.toThrow(
      "ULOG.120126.gz: the gzip data is damaged or ends short of its end",
    );
  });
});
