// The authenticated caller that the auth plugin attaches to every request.
import type { User } from '../store/schema.js';

export interface RequestUser {
  id: string;
  externalUserId: string;
  email: string | null;
  isAdmin: boolean;
  row: User;
}

declare module 'fastify' {
  interface FastifyRequest {
    user: RequestUser;
  }
}
