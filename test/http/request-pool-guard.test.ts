// HTTP handlers must run their queries on the request pool (statement_timeout), never on the
// unlimited one: a new route that used `ctx.database.db` would silently give up the time limit.
// Account deletion is the one request that needs the unlimited pool; it takes it in src/domain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../support/corpus.js';

test('no module under src/http reaches the unlimited database pool', () => {
  const dir = path.join(projectRoot, 'src/http');
  const files = fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.ts'));
  assert.ok(files.length > 20, 'src/http was read');
  const offenders = files.filter((f) => /\bdatabase\s*\.\s*(?:db|pool)\b|\bdatabase\s*:\s*\{\s*db\b|\{\s*db\s*\}\s*=\s*\w+\.database\b/.test(fs.readFileSync(path.join(dir, f), 'utf8')));
  assert.deepEqual(offenders, []);
});
