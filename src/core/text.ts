/**
 * Text files as users' tools save them (docs/cli.md, "Files and paths"): UTF-8 with or without BOM, UTF-16
 * with BOM (Excel's "Unicode text"), and Windows-1252 (French Excel's and Notepad's "ANSI"), which
 * is what bytes that are not valid UTF-8 almost always are in a Moroccan or French office.
 */
export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export function decodeText(buffer: Uint8Array): { text: string; encoding: TextEncoding } {
  if (buffer[0] === 0xff && buffer[1] === 0xfe)
    return { text: new TextDecoder('utf-16le').decode(buffer.subarray(2)), encoding: 'utf-16le' };
  if (buffer[0] === 0xfe && buffer[1] === 0xff)
    return { text: new TextDecoder('utf-16be').decode(buffer.subarray(2)), encoding: 'utf-16be' };
  const body = buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? buffer.subarray(3) : buffer;
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(body), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(body), encoding: 'windows-1252' };
  }
}
