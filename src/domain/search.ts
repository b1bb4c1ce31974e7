// Full-text search over one user's calls. The index (call_search, migration 002_search) is kept
// current by triggers; this module only reads it.
//
// Ranking is ts_rank_cd over the weighted document (title and contact name above summaries and
// action items, above notes, above transcript text), then newest call first. Pages are addressed by
// an opaque offset cursor: a rank is a float, so keyset pagination on it is not stable, and search
// result sets are small enough for OFFSET.
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
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
  const rows = await sql<{
    id: string;
    title: string | null;
    uploadTitle: string | null;
    suggestedTitle: string | null;
    contactName: string | null;
    status: CallStatus;
    createdAt: Date;
    durationSeconds: number | null;
    rank: number;
    snippet: string;
    matchingSegmentCount: number;
    segmentMatch: SegmentMatch;
    segments: SearchSegment[];
  }>`
    WITH q0 AS (SELECT websearch_to_tsquery('english', ${opts.q}) AS query),
    -- The query's positive lexemes OR-ed: segments holding some of the words when none holds all.
    q AS (
      SELECT q0.query,
        (SELECT string_agg('''' || m[1] || '''', ' | ')
           FROM regexp_matches(
             regexp_replace(regexp_replace(querytree(q0.query)::text, '!\\s*\\([^)]*\\)', '', 'g'), '!\\s*''(?:[^'']|'''')*''', '', 'g'),
             '''((?:[^'']|'''')*)''', 'g') AS m
        )::tsquery AS any_query
      FROM q0
    ),
    page AS (
      SELECT s.call_id, s.content, ts_rank_cd(s.document, q.query) AS rank, c.created_at
      FROM call_search s
      JOIN calls c ON c.id = s.call_id AND c.user_id = s.user_id
      CROSS JOIN q
      WHERE s.user_id = ${userId} AND s.document @@ q.query
      ORDER BY rank DESC, c.created_at DESC, c.id DESC
      LIMIT ${opts.limit + 1} OFFSET ${opts.offset}
    )
    SELECT c.id, c.title, c.upload_title AS "uploadTitle", c.suggested_title AS "suggestedTitle", c.contact_name AS "contactName",
           c.status, c.created_at AS "createdAt", c.duration_seconds AS "durationSeconds",
           page.rank::float8 AS rank,
           ts_headline('english', translate(page.content, ${SENTINEL_START + SENTINEL_STOP}, '  '), q.query, ${headlineOptions}) AS snippet,
           coalesce(m.n, 0)::int AS "matchingSegmentCount",
           CASE WHEN m.n > 0 THEN CASE WHEN m.all_terms THEN 'all_terms' ELSE 'some_terms' END ELSE 'none' END AS "segmentMatch",
           coalesce(m.segments, '[]'::jsonb) AS segments
    FROM page
    JOIN calls c ON c.id = page.call_id AND c.user_id = ${userId}
    CROSS JOIN q
    LEFT JOIN LATERAL (
      SELECT count(*) AS n, bool_or(x.all_terms) AS all_terms,
             jsonb_agg(jsonb_build_object(
               'segmentId', x.seg ->> 'id',
               'startSeconds', CASE WHEN jsonb_typeof(x.seg -> 'startSeconds') = 'number' THEN x.seg -> 'startSeconds' ELSE '0'::jsonb END,
               'endSeconds', CASE WHEN jsonb_typeof(x.seg -> 'endSeconds') = 'number' THEN x.seg -> 'endSeconds' ELSE '0'::jsonb END,
               'speakerId', x.seg ->> 'speakerId',
               'speakerDisplayName', x.seg ->> 'speakerDisplayName',
               'role', x.seg ->> 'role'
             ) ORDER BY x.ord) FILTER (WHERE x.ord_match <= ${SEARCH_MAX_SEGMENTS_PER_HIT}) AS segments
      FROM (
        SELECT y.*, row_number() OVER (ORDER BY y.ord) AS ord_match
        FROM (
          SELECT z.*, count(*) FILTER (WHERE z.all_terms) OVER () AS n_all
          FROM (
            SELECT e.seg, e.ord, v.tsv @@ q.query AS all_terms, q.any_query IS NOT NULL AND v.tsv @@ q.any_query AS some_terms
            FROM call_artifacts a
            CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(a.body -> 'segments') = 'array' THEN a.body -> 'segments' ELSE '[]'::jsonb END)
              WITH ORDINALITY AS e(seg, ord)
            CROSS JOIN LATERAL (SELECT to_tsvector('english', e.seg ->> 'text') AS tsv) v
            WHERE a.call_id = page.call_id AND a.user_id = ${userId} AND a.kind = 'transcript'
              AND jsonb_typeof(e.seg -> 'text') = 'string'
          ) z
          WHERE z.all_terms OR z.some_terms
        ) y
        -- Segments that match the whole query; failing those, segments with some of its words.
        WHERE y.all_terms OR y.n_all = 0
      ) x
    ) m ON true
    ORDER BY page.rank DESC, page.created_at DESC, c.id DESC
  `.execute(db);

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
