// Prepared statements for the request paths that clients poll (call status, call list). Kysely
// builds, transforms (camel case) and compiles a query object on every execution, and pg sends
// unnamed statements that PostgreSQL parses and plans each time; on these paths that was most of
// a request's CPU (bench/http.ts, docs/bench/http.md). A statement here is fixed SQL text with a
// name: each pooled connection parses it once and then only binds values, and rows come back as
// they are named in the SELECT (aliases already camel case), so no row mapping is needed.
import type pg from 'pg';

/** What a prepared statement runs on: the pool (or one of its clients). */
export type SqlRunner = Pick<pg.Pool, 'query'>;

export class PreparedStatement<Row extends object, Values extends unknown[]> {
  /**
   * @param name unique per statement text within the process (pg caches statements per connection by name)
   * @param text the SQL, with $1... placeholders; every statement on user data takes the owner id
   */
  constructor(
    readonly name: string,
    readonly text: string,
  ) {}

  async rows(runner: SqlRunner, values: Values): Promise<Row[]> {
    const result = await runner.query<Row>({ name: this.name, text: this.text, values });
    return result.rows;
  }
}
