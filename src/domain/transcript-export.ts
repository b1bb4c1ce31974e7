// Transcript export: WebVTT with voice tags, SubRip with speaker prefixes, and plain text in the
// cleanText line format. One cue per transcript segment, in stored order. Timestamps always carry
// hours (WebVTT allows it, SubRip requires it), so calls past one hour need no special case.
import { cleanTextOf, type TranscriptSegment } from './transcript.js';
import { cutText } from './text-cut.js';

export const EXPORT_FORMATS = ['json', 'srt', 'vtt', 'txt'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_CONTENT_TYPES: Record<Exclude<ExportFormat, 'json'>, string> = {
  vtt: 'text/vtt; charset=utf-8',
  srt: 'application/x-subrip; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
};

type Segment = Pick<TranscriptSegment, 'id' | 'startSeconds' | 'endSeconds' | 'speakerDisplayName' | 'text'>;

/** Whole milliseconds of a cue: never negative, and the end strictly after the start (WebVTT rejects an empty cue). */
function cueMillis(s: Segment): [number, number] {
  const start = Math.max(0, Math.round((Number.isFinite(s.startSeconds) ? s.startSeconds : 0) * 1000));
  const end = Math.round((Number.isFinite(s.endSeconds) ? s.endSeconds : 0) * 1000);
  return [start, Math.max(end, start + 1)];
}

/** `HH:MM:SS<sep>mmm`; hours grow beyond two digits if ever needed. */
export function cueTimestamp(ms: number, separator: '.' | ','): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const f = ms % 1000;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(f, 3)}`;
}

/** One line of cue text: a blank line would end the cue early. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

// WebVTT cue text is markup: &, < and > are escaped (which also rules out "-->" inside a cue).
function vttEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const spoken = (segments: Segment[]) => segments.filter((s) => oneLine(s.text) !== '');

export function toWebVtt(segments: Segment[]): string {
  const cues = spoken(segments).map((s) => {
    const [start, end] = cueMillis(s);
    const voice = vttEscape(oneLine(s.speakerDisplayName)) || 'Speaker';
    return `${s.id}\n${cueTimestamp(start, '.')} --> ${cueTimestamp(end, '.')}\n<v ${voice}>${vttEscape(oneLine(s.text))}</v>`;
  });
  return ['WEBVTT', ...cues].join('\n\n') + '\n';
}

export function toSrt(segments: Segment[]): string {
  return spoken(segments)
    .map((s, i) => {
      const [start, end] = cueMillis(s);
      const name = oneLine(s.speakerDisplayName);
      return `${i + 1}\n${cueTimestamp(start, ',')} --> ${cueTimestamp(end, ',')}\n${name ? `${name}: ` : ''}${oneLine(s.text)}\n`;
    })
    .join('\n');
}

export function toPlainText(segments: Segment[]): string {
  const text = cleanTextOf(spoken(segments).map((s) => ({ ...s, speakerDisplayName: oneLine(s.speakerDisplayName), text: oneLine(s.text) })));
  return text === '' ? '' : `${text}\n`;
}

/** Segments of a stored transcript read defensively: a field of the wrong type must not make a 500. */
export function exportableSegments(stored: unknown): Segment[] {
  const list = (stored as { segments?: unknown } | null)?.segments;
  if (!Array.isArray(list)) return [];
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return list
    .filter((s): s is Record<string, unknown> => typeof s === 'object' && s !== null)
    .map((s, i) => ({
      id: str(s.id) || `seg_${String(i + 1).padStart(4, '0')}`,
      startSeconds: num(s.startSeconds),
      endSeconds: num(s.endSeconds),
      speakerDisplayName: str(s.speakerDisplayName) || str(s.speakerLabel) || str(s.speaker),
      text: str(s.text),
    }));
}

export function exportTranscript(format: Exclude<ExportFormat, 'json'>, segments: Segment[]): string {
  if (format === 'vtt') return toWebVtt(segments);
  if (format === 'srt') return toSrt(segments);
  return toPlainText(segments);
}

/** The title part of a file name: 100 characters, and 200 bytes so that it and the extension fit the 255 bytes most file systems allow. */
export const FILE_NAME_TITLE_LIMITS = { maxGraphemes: 100, maxUtf8Bytes: 200 } as const;

/**
 * The download's file name: the call's title made safe for every file system (no path
 * separators, reserved or control characters), or `call-<first 8 of the id>` without a title.
 * The title is cut at whole characters (grapheme clusters): a cut inside an emoji's surrogate
 * pair made encodeURIComponent throw while writing `filename*` (a 500).
 */
export function exportFileName(title: string | null, callId: string, format: Exclude<ExportFormat, 'json'>): string {
  const safe = (title ?? '')
    .normalize('NFC')
    // A lone surrogate has no UTF-8 form (encodeURIComponent throws): replaced like other unsafe characters.
    .replace(/\p{Cs}/gu, ' ')
    .replace(/[\u0000-\u001f\u007f-\u009f/\\:*?"<>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '');
  const base = cutText(safe, FILE_NAME_TITLE_LIMITS).trim();
  return `${base || `call-${callId.slice(0, 8)}`}.${format}`;
}

/** An ASCII stand-in for clients that ignore `filename*`: accents dropped, other characters `_`. */
export function asciiFileName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '_')
    .replace(/[%]/g, '_');
}
