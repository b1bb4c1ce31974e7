// What a repository function runs on: the database handle or an open transaction.
import type { Transaction } from 'kysely';
import type { Db } from '../database.js';
import type { Database } from '../schema.js';

export type Executor = Db | Transaction<Database>;
