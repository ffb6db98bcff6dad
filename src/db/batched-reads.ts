// Reads that many concurrent requests make, each a network round trip on PostgreSQL: under load most of a small
// request's cost is the database's. Here the reads that arrive while others are in flight wait and go together, one
// query for all of them (the same key read once). A read only ever joins a query that starts after it was asked
// for, so it is as fresh as a query of its own would be; when nothing is in flight, it goes at once, alone.

/** How many batched queries of one kind may run at once; the rest of the pool stays free for everything else. */
const QUERIES_IN_FLIGHT = 2;
/** Keys per query: a bound on the statement's arrays, far above what a pool's worth of requests produces. */
const KEYS_PER_QUERY = 500;

type Waiter<Row> = { resolve(row: Row | undefined): void; reject(error: unknown): void };

export class BatchedReads<Row> {
  /** Reads waiting for the next query, by key. */
  private readonly waiting = new Map<string, Waiter<Row>[]>();
  private inFlight = 0;

  /** `query` reads the rows of the given keys, returning them by key (a key with no row is left out). */
  constructor(private readonly query: (keys: string[]) => Promise<Map<string, Row>>) {}

  read(key: string): Promise<Row | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      this.startQueries();
    });
  }

  private startQueries(): void {
    while (this.inFlight < QUERIES_IN_FLIGHT && this.waiting.size > 0) {
      const batch = new Map<string, Waiter<Row>[]>();
      for (const [key, waiters] of this.waiting) {
        if (batch.size === KEYS_PER_QUERY) break;
        batch.set(key, waiters);
        this.waiting.delete(key);
      }
      this.inFlight++;
      this.run(batch).finally(() => {
        this.inFlight--;
        this.startQueries();
      });
    }
  }

  private async run(batch: Map<string, Waiter<Row>[]>): Promise<void> {
    try {
      const rows = await this.query([...batch.keys()]);
      for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(rows.get(key));
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }
}
