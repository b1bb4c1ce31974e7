// Seeds benchmark data straight into the database with generate_series: users, calls, transcript
// artifacts and action items. Only the benchmarks use it; rows look like processed calls so the
// routes under measurement do their ordinary work.
import { CompiledQuery, sql } from 'kysely';
import { POLLED_CALL_STATEMENTS } from '../../src/store/repos/call-reads.js';
import type { Db } from '../../src/store/database.js';

/** A transcript of ordinary size (about 80 segments, 1,200 words), stored as the pipeline would. */
export function syntheticTranscript(segments = 80): Record<string, unknown> {
  const speakers = [
    { speakerId: 'spk_0', sourceSpeakerId: 'A', label: 'You', displayName: 'You', role: 'USER', confidence: 'HIGH', labelSource: 'GREETING_MATCH', voiceMatchScore: null, voiceProfileMatched: null },
    { speakerId: 'spk_1', sourceSpeakerId: 'B', label: 'Contact', displayName: 'Contact', role: 'CONTACT', confidence: 'HIGH', labelSource: 'BY_ELIMINATION', voiceMatchScore: null, voiceProfileMatched: null },
  ];
  const text = 'thanks for calling back about the appointment we can move it to thursday afternoon if that works for you';
  const words = text.split(' ');
  const segs = Array.from({ length: segments }, (_, i) => {
    const s = speakers[i % 2];
    const start = i * 4;
    return {
      id: `seg_${String(i).padStart(4, '0')}`,
      speaker: s.speakerId,
      speakerLabel: s.label,
      speakerDisplayName: s.displayName,
      role: s.role,
      start,
      end: start + 3.8,
      text,
      confidence: 0.82,
      words: words.map((w, k) => ({ word: w, start: start + k * 0.18, end: start + k * 0.18 + 0.16, confidence: 0.8 })),
    };
  });
  return { schemaVersion: 2, language: 'en', durationSeconds: segments * 4, speakers: speakers, segments: segs, speakerResolution: { strategyVersion: 2, warnings: [] } };
}

export interface SeedPlan {
  /** Users named bench-user-1 … bench-user-N (external ids). */
  users: number;
  /** Calls per user. */
  callsPerUser: number;
  /** How many of the subject's newest calls get a transcript and two action items (others get none: a transcript is ~100 kB). */
  processed: number;
  /** The external id whose calls the benchmark reads. */
  subject: string;
  /** External ids that exist before seeding (local user): they get calls too. */
  extraExternalIds?: string[];
}

export async function seed(db: Db, plan: SeedPlan): Promise<void> {
  await sql`
    INSERT INTO users (external_user_id, email, display_name, last_login_at)
    SELECT 'bench-user-' || g, 'bench' || g || '@example.test', NULL, now() FROM generate_series(1, ${plan.users}::int) g
    ON CONFLICT (external_user_id) DO NOTHING`.execute(db);
  for (const ext of plan.extraExternalIds ?? []) {
    await sql`INSERT INTO users (external_user_id) VALUES (${ext}) ON CONFLICT (external_user_id) DO NOTHING`.execute(db);
  }
  const owners = sql`(SELECT id FROM users WHERE external_user_id LIKE 'bench-user-%' OR external_user_id = ANY(${plan.extraExternalIds ?? []}::text[]))`;
  // Newest call has g = 1; created_at steps back one second per call.
  await sql`
    INSERT INTO calls (user_id, status, upload_title, direction, contact_name, duration_seconds, created_at, updated_at, completed_at, audio_bytes)
    SELECT u.id,
           CASE WHEN g % 17 = 0 THEN 'FAILED' WHEN g <= 3 THEN 'QUEUED' ELSE 'COMPLETED' END,
           'Call ' || g, CASE WHEN g % 2 = 0 THEN 'INCOMING' ELSE 'OUTGOING' END, 'Contact ' || (g % 40),
           30 + g % 900, now() - make_interval(secs => g), now(), now(), 1000000
    FROM ${owners} u CROSS JOIN generate_series(1, ${plan.callsPerUser}::int) g`.execute(db);
  if (plan.processed > 0) {
    const body = JSON.stringify(syntheticTranscript());
    await sql`
      INSERT INTO call_artifacts (call_id, user_id, kind, schema_version, body)
      SELECT c.id, c.user_id, 'transcript', 2, ${body}::jsonb FROM calls c JOIN users u ON u.id = c.user_id
      WHERE u.external_user_id = ${plan.subject} AND c.status = 'COMPLETED'
      ORDER BY c.created_at DESC, c.id DESC LIMIT ${plan.processed}
      ON CONFLICT DO NOTHING`.execute(db);
    await sql`
      INSERT INTO action_items (user_id, call_id, title, description, status, source_text, created_at, owner_role, intent, priority, source, position)
      SELECT a.user_id, a.call_id, 'Follow up ' || k, 'Send the quote by Thursday', CASE WHEN k = 1 THEN 'OPEN' ELSE 'DONE' END,
             'we can move it to thursday', now() - make_interval(secs => k), 'USER', 'CALL', 'MEDIUM', 'AI', k - 1
      FROM call_artifacts a CROSS JOIN generate_series(1, 2) k WHERE a.kind = 'transcript' AND a.user_id IN ${owners}`.execute(db);
  }
  // A database in steady state, not one just bulk-loaded: VACUUM sets the visibility map and
  // resets the insert counters, so autovacuum does not start on the seeded tables in the middle of
  // a measurement, and CHECKPOINT writes the dirty pages now instead of during the next load.
  await sql`VACUUM ANALYZE`.execute(db);
  await sql`CHECKPOINT`.execute(db).catch(() => undefined);
}

/** The newest ids of one user's calls, for status polling. */
export async function newestCallIds(db: Db, externalId: string, n: number): Promise<string[]> {
  const r = await sql<{ id: string }>`
    SELECT c.id FROM calls c JOIN users u ON u.id = c.user_id WHERE u.external_user_id = ${externalId}
    ORDER BY c.created_at DESC, c.id DESC LIMIT ${n}`.execute(db);
  return r.rows.map((x) => x.id);
}

/** The subject's newest call with a transcript, or '' when none has one. */
export async function transcriptCallId(db: Db, externalId: string): Promise<string> {
  const r = await sql<{ id: string }>`
    SELECT a.call_id AS id FROM call_artifacts a JOIN users u ON u.id = a.user_id JOIN calls c ON c.id = a.call_id
    WHERE u.external_user_id = ${externalId} AND a.kind = 'transcript' ORDER BY c.created_at DESC LIMIT 1`.execute(db);
  return r.rows[0]?.id ?? '';
}

export async function currentDatabase(db: Db): Promise<string> {
  return (await sql<{ name: string }>`SELECT current_database() AS name`.execute(db)).rows[0].name;
}

/**
 * The plans of the status and list statements for one user (the very SQL src/domain/calls.ts prepares),
 * with PostgreSQL's own execution time: whether they are index-backed, measured without HTTP.
 */
export async function queryPlans(db: Db, externalId: string, statusIds: string[]): Promise<Array<{ query: string; plan: string; executionMs: number }>> {
  const uid = (await sql<{ id: string }>`SELECT id FROM users WHERE external_user_id = ${externalId}`.execute(db)).rows[0].id;
  const queries: Array<[string, string, unknown[]]> = [
    ['status (10 ids, one poll)', POLLED_CALL_STATEMENTS.status.text, [statusIds.map(() => 0), statusIds.map(() => uid), statusIds]],
    ['list (first 50)', POLLED_CALL_STATEMENTS.list.text, [[0], [uid]]],
    ['list ?status=COMPLETED (first 50)', POLLED_CALL_STATEMENTS.listByStatus.text, [[0], [uid], ['COMPLETED']]],
  ];
  const out: Array<{ query: string; plan: string; executionMs: number }> = [];
  for (const [name, text, values] of queries) {
    // Warm the cache first; then the median of five runs.
    const times: number[] = [];
    let plan = '';
    for (let i = 0; i < 6; i++) {
      const r = await db.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode; 'Execution Time': number }> }>(CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values));
      const top = r.rows[0]['QUERY PLAN'][0];
      if (i > 0) times.push(top['Execution Time']);
      plan = scans(top.Plan).join(', ');
    }
    times.sort((a, b) => a - b);
    out.push({ query: name, plan, executionMs: times[Math.floor(times.length / 2)] });
  }
  return out;
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** The scans of a plan tree, e.g. "Index Scan calls_user_created_idx". */
function scans(n: PlanNode): string[] {
  const own = /Scan/.test(n['Node Type']) ? [`${n['Node Type']} ${n['Index Name'] ?? n['Relation Name'] ?? ''}`.trim()] : [];
  return [...new Set([...own, ...(n.Plans ?? []).flatMap(scans)])];
}
