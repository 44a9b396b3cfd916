import { stripVTControlCharacters } from 'node:util';

/**
 * A link as a QR code a phone's camera reads off the terminal (docs/studio.md "From a phone or
 * another device"): node-qrcode's small terminal renderer, two rows of modules per line of text
 * (half blocks `▀ ▄ █`), drawn black on white with colour codes whatever the terminal's own colours
 * (a dark theme would otherwise show it inverted), with a one-module white border. Error correction
 * M: a sign-in link (≈ 80 characters) is a version 5 code, 37 modules, so 39 columns by 20 lines.
 */
export async function terminalQr(text: string): Promise<{ lines: string[]; width: number }> {
  // Loaded here: only `studio --lan` on a terminal draws one.
  const { default: QRCode } = await import('qrcode');
  const drawn = await QRCode.toString(text, { type: 'terminal', small: true, errorCorrectionLevel: 'M' });
  // Each line carries its own colour codes and ends with a reset; the last piece is only codes.
  const lines = drawn.split('\n').filter((line) => stripVTControlCharacters(line) !== '');
  const width = Math.max(...lines.map((line) => stripVTControlCharacters(line).length));
  return { lines, width };
}
