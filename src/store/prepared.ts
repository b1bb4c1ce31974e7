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

interface Waiting<Request, Answer> {
  request: Request;
  resolve(answer: Answer): void;
  reject(err: unknown): void;
}

/**
 * Answers requests that arrive together with one statement: `run` gets every request waiting in
 * one turn of the event loop and returns their answers in the same order. At most `maxInFlight`
 * statements run at once; requests arriving meanwhile wait for the next one, so the busier the
 * service, the more requests one statement answers, while a lone request is sent at once. Each
 * round trip to PostgreSQL costs both processes a socket write and read, and PostgreSQL a bind,
 * an executor start-up and a snapshot, whatever the statement does; under load that was most of
 * a status poll's cost (docs/bench/speed.md, fourth round).
 */
export class StatementBatcher<Request, Answer> {
  private waiting: Array<Waiting<Request, Answer>> = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: (requests: Request[]) => Promise<Answer[]>,
    /** `weight` of one request (1 unless given); a statement carries at most `maxWeight`, and at least one request. */
    private readonly limits: { maxInFlight: number; maxWeight: number; weight?: (request: Request) => number },
  ) {}

  submit(request: Request): Promise<Answer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0 || this.inFlight >= this.limits.maxInFlight) return;
    this.scheduled = true;
    // setImmediate, not a microtask: the requests parsed in this turn of the event loop join the statement.
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  private send(): void {
    if (this.waiting.length === 0 || this.inFlight >= this.limits.maxInFlight) return;
    const weight = this.limits.weight ?? (() => 1);
    let taken = 0;
    let total = 0;
    while (taken < this.waiting.length) {
      const w = weight(this.waiting[taken].request);
      if (taken > 0 && total + w > this.limits.maxWeight) break;
      total += w;
      taken++;
    }
    const batch = this.waiting.splice(0, taken);
    this.inFlight++;
    this.run(batch.map((x) => x.request))
      .then(
        (answers) => batch.forEach((x, i) => x.resolve(answers[i])),
        (err: unknown) => batch.forEach((x) => x.reject(err)),
      )
      .finally(() => {
        this.inFlight--;
        this.schedule();
      });
    this.schedule();
  }
}
