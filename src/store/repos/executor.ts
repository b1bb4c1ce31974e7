// What a repository function runs on: the database handle or an open transaction.
import type { Db, Tx } from '../database.js';

export type Executor = Db | Tx;
