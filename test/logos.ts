import { crc32, deflateSync } from 'node:zlib';

/** Small logos for the branding tests: a real PNG, a JPEG's bytes and an SVG drawing. */

function chunk(type: string, data: Buffer) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A 48×48 RGB PNG: a teal square with a white band. */
function squarePng(): Buffer {
  const size = 48;
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) {
      const band = y > 20 && y < 28;
      row.set(band ? [255, 255, 255] : [15, 118, 110], 1 + x * 3);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const PNG_LOGO = squarePng();

/** A 1×1 baseline JPEG. */
export const JPEG_LOGO = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);

export const SVG_LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 40" width="120" height="40"><rect width="40" height="40" rx="8" fill="#0f766e"/><circle cx="20" cy="20" r="9" fill="#ffffff"/><text x="48" y="27" font-family="Arial, sans-serif" font-size="20" font-weight="700" fill="#0f766e">Acme</text></svg>';
