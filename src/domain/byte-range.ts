// HTTP range requests (RFC 9110 §14) for the call's audio: a player seeks by asking for the bytes
// it needs. One range per request is honoured; a multi-range request is answered with the whole
// file, which the RFC allows and players do not send.
import type { ByteRange } from '../store/blobs.js';

export type RangeAnswer = { kind: 'whole' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

export function resolveRange(header: string | undefined, size: number): RangeAnswer {
  if (!header) return { kind: 'whole' };
  const m = /^bytes=\s*(\d*)-(\d*)\s*$/i.exec(header.trim());
  // Another unit, several ranges or a malformed header: ignore it and send the whole file.
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'whole' };
  if (m[1] === '') {
    // The last N bytes.
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size) return { kind: 'unsatisfiable' };
  if (end < start) return { kind: 'whole' };
  return { kind: 'partial', range: { start, end } };
}
