import sharp from 'sharp';
import { readFileSync } from 'node:fs';
import { createDecodeSlots } from './src/render/decode-slots.ts';
const side = 7000;
if (process.env.NOCACHE) sharp.cache(false);
console.log('concurrency', sharp.concurrency(), 'cache', JSON.stringify(sharp.cache()));
const rss = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024);
const img = await sharp({ create: { width: side, height: side, channels: 3, background: '#808080' } })
  .composite([{ input: Buffer.from(`<svg width="${side}" height="${side}"><defs><linearGradient id="g"><stop offset="0" stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`) }])
  .jpeg({ progressive: true, quality: 80 }).toBuffer();
await new Promise((r) => setTimeout(r, 2000));
const base = rss();
let peak = base;
const timer = setInterval(() => (peak = Math.max(peak, rss())), 20);
const slots = createDecodeSlots(Number(process.env.SLOTS ?? 2), 100);
const t = performance.now();
for (let round = 0; round < 2; round++)
await Promise.all(Array.from({ length: 10 }, () => slots.run(() => sharp(img, { limitInputPixels: 50_000_000, failOn: 'truncated', sequentialRead: true }).resize(256, 256, { fit: 'inside' }).raw().toBuffer())));
console.log('base', base, 'peak', peak, 'ms', Math.round(performance.now() - t));
await new Promise((r) => setTimeout(r, 10000));
clearInterval(timer);
console.log('after 10 s', rss());
