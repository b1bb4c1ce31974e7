// Full-text search over one user's calls. The index (call_search, migration 002_search) is kept
// current by triggers; this module only reads it.
//
// Ranking is ts_rank_cd over the weighted document (title and contact name above summaries and
// action items, above notes, above transcript text), then newest call first. Pages are addressed by
// an opaque offset cursor: a rank is a float, so keyset pagination on it is not stable, and search
// result sets are small enough for OFFSET.
import type { Db } from '../store/database.js';
import { searchPage } from '../store/repos/search.js';
import { effectiveTitle } from './calls.js';
import type { CallStatus } from '../store/schema.js';

export const SEARCH_MAX_LIMIT = 50;
export const SEARCH_DEFAULT_LIMIT = 20;
/** Matching segments listed per hit; matchingSegmentCount tells how many there are in all. */
export const SEARCH_MAX_SEGMENTS_PER_HIT = 20;
/** Markers around matched words in a snippet, the only markup a snippet holds. */
export const HIGHLIGHT_START = '<mark>';
export const HIGHLIGHT_STOP = '</mark>';

// ts_headline marks matched words with these two control characters instead of <mark>, after
// they are removed from the indexed text: so every one in its output is a marker, whatever the
// user wrote (including the literal string "<mark>"). The snippet is then HTML-escaped piece by
// piece and the markers become <mark>/</mark>.
const SENTINEL_START = '\u0001';
const SENTINEL_STOP = '\u0002';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text made safe as HTML content and inside a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/**
 * A ts_headline output with sentinel markers as a snippet that is safe to insert as HTML: all of
 * the text escaped, the markers as <mark>/</mark>. A marker without its partner (ts_headline pairs
 * them, but a snippet must never carry an unbalanced tag) is dropped.
 */
export function snippetHtml(headline: string): string {
  let out = '';
  let open = false;
  for (const piece of headline.split(/([\u0001\u0002])/)) {
    if (piece === SENTINEL_START) {
      if (!open) out += HIGHLIGHT_START;
      open = true;
    } else if (piece === SENTINEL_STOP) {
      if (open) out += HIGHLIGHT_STOP;
      open = false;
    } else {
      out += escapeHtml(piece);
    }
  }
  return open ? out + HIGHLIGHT_STOP : out;
}

export interface SearchSegment {
  segmentId: string;
  startSeconds: number;
  endSeconds: number;
  speakerId: string | null;
  speakerDisplayName: string | null;
  role: string | null;
}

export interface SearchHit {
  callId: string;
  title: string | null;
  contactName: string | null;
  status: CallStatus;
  createdAt: string;
  durationSeconds: number | null;
  rank: number;
  snippet: string;
  matchingSegmentCount: number;
  segmentMatch: SegmentMatch;
  segments: SearchSegment[];
}

/** How the listed segments match: each the whole query, each some of its words, or none listed. */
export const SEGMENT_MATCHES = ['all_terms', 'some_terms', 'none'] as const;
export type SegmentMatch = (typeof SEGMENT_MATCHES)[number];

/** The cursor names the offset of the next page and the query it belongs to. */
export function encodeSearchCursor(offset: number, q: string): string {
  return Buffer.from(JSON.stringify({ o: offset, q: queryTag(q) })).toString('base64url');
}

export function decodeSearchCursor(cursor: string, q: string): number | null {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown; q?: unknown };
    if (typeof v.o !== 'number' || !Number.isInteger(v.o) || v.o < 0 || v.o > 100_000 || v.q !== queryTag(q)) return null;
    return v.o;
  } catch {
    return null;
  }
}

// A short, non-reversible tag of the query (the cursor must not carry the query text itself).
function queryTag(q: string): string {
  let h = 0x811c9dc5;
  for (const ch of q.trim()) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

export async function searchCalls(db: Db, userId: string, opts: { q: string; limit: number; offset: number }): Promise<{ items: SearchHit[]; nextOffset: number | null }> {
  const headlineOptions = `MaxFragments=2, MaxWords=18, MinWords=6, ShortWord=2, FragmentDelimiter=" … ", StartSel=${SENTINEL_START}, StopSel=${SENTINEL_STOP}`;
  // The page is chosen first; snippets and segment matches are computed for its rows only.
  const rows = await searchPage(db, userId, { ...opts, markers: SENTINEL_START + SENTINEL_STOP, headlineOptions, maxSegmentsPerHit: SEARCH_MAX_SEGMENTS_PER_HIT });

  const page = rows.rows.slice(0, opts.limit);
  return {
    items: page.map((r) => ({
      callId: r.id,
      title: effectiveTitle(r),
      contactName: r.contactName,
      status: r.status,
      createdAt: r.createdAt.toISOString(),
      durationSeconds: r.durationSeconds,
      rank: r.rank,
      snippet: snippetHtml(r.snippet),
      matchingSegmentCount: r.matchingSegmentCount,
      segmentMatch: r.segmentMatch,
      segments: r.segments,
    })),
    nextOffset: rows.rows.length > opts.limit ? opts.offset + opts.limit : null,
  };
}
