// The full-text search statement over the user's call_search rows (see domain/search.ts for the
// ranking, cursor and snippet rules). Every value is a bound parameter; the owner id scopes each table.
import { sql } from 'kysely';
import type { Db } from '../database.js';
import type { CallStatus } from '../schema.js';

export interface SearchPageOptions {
  q: string;
  limit: number;
  offset: number;
  /** The two marker characters ts_headline uses, removed from the indexed text first. */
  markers: string;
  headlineOptions: string;
  maxSegmentsPerHit: number;
}

/** Query nodes (lexemes and operators) up to which hits are ranked and highlighted by the query itself: `a b c`, `"a b c"`. */
export const SCORING_MAX_QUERY_NODES = 5;

/** One page of hits (one row more than `limit` when more follow), with snippets and matching segments. */
export async function searchPage(db: Db, userId: string, opts: SearchPageOptions) {
  return sql<{
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
    segmentMatch: 'all_terms' | 'some_terms' | 'none';
    segments: Array<{ segmentId: string; startSeconds: number; endSeconds: number; speakerId: string | null; speakerDisplayName: string | null; role: string | null }>;
  }>`
    WITH q0 AS (SELECT websearch_to_tsquery('english', ${opts.q}) AS query),
    -- The query's positive lexemes OR-ed: segments holding some of the words when none holds all.
    q1 AS (
      SELECT q0.query,
        (SELECT string_agg(DISTINCT '''' || m[1] || '''', ' | ')
           FROM regexp_matches(
             regexp_replace(regexp_replace(querytree(q0.query)::text, '!\\s*\\([^)]*\\)', '', 'g'), '!\\s*''(?:[^'']|'''')*''', '', 'g'),
             '''((?:[^'']|'''')*)''', 'g') AS m
        )::tsquery AS any_query
      FROM q0
    ),
    -- What ranks the hits and what the snippet highlights. The cost of ts_rank_cd and ts_headline
    -- grows steeply with the number of query nodes: 80 words (within q's 500 characters) over
    -- 20 000 characters of notes cost 45 ms of ranking for every matching call (not only the page's)
    -- and, as a quoted phrase, minutes of headline per hit on PostgreSQL 15 (70 excluded words: 2 s).
    -- So a query of more than five nodes (three words and their operators) is ranked and highlighted
    -- by its words OR-ed, whose cost stays linear in the text; one with no word to find (only
    -- exclusions, which a matching text does not hold) by a lexeme no text holds (the marker
    -- character, removed from the text). Which calls match is always decided by the whole query.
    q AS (
      SELECT q1.query, q1.any_query,
        CASE WHEN numnode(q1.query) <= ${sql.lit(SCORING_MAX_QUERY_NODES)} THEN q1.query
             WHEN q1.any_query IS NOT NULL THEN q1.any_query
             ELSE quote_literal(chr(1))::tsquery END AS scoring_query
      FROM q1
    ),
    page AS (
      SELECT s.call_id, s.content, ts_rank_cd(s.document, q.scoring_query) AS rank, c.created_at
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
           ts_headline('english', translate(page.content, ${opts.markers}, '  '), q.scoring_query, ${opts.headlineOptions}) AS snippet,
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
             ) ORDER BY x.ord) FILTER (WHERE x.ord_match <= ${opts.maxSegmentsPerHit}) AS segments
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
}
