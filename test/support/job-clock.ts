// Crash tests kill a worker mid-job; the queue hands the job to another worker once the job's time
// limit has passed (src/domain/job-time-limit.ts). The limit must be generous, or a slow run on a
// loaded machine stops itself at it, so rather than wait it out a test lets that time pass at once.
import pg from 'pg';
import { ANALYSIS_QUEUE, CALL_QUEUE } from '../../src/store/queue.js';

/** Makes every running call or analysis job look as old as its time limit: the queue's next check expires it. */
export async function expireRunningCallJobs(connection: pg.ClientConfig): Promise<number> {
  const c = new pg.Client(connection);
  await c.connect();
  try {
    const r = await c.query(`UPDATE pgboss.job SET started_on = now() - expire_in - interval '1 second' WHERE name IN ($1, $2) AND state = 'active'`, [CALL_QUEUE, ANALYSIS_QUEUE]);
    return r.rowCount ?? 0;
  } finally {
    await c.end();
  }
}
