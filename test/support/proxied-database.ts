// A fresh database on the external PostgreSQL reached through a loopback TCP proxy, so a test can
// cut the connection (an outage) without stopping the shared server.
import { createExternalDatabase, EXTERNAL_ADMIN_URL } from './service.js';
import { CuttableProxy } from './tcp-proxy.js';

export interface ProxiedDatabase {
  proxy: CuttableProxy;
  /** DATABASE_URL through the proxy. */
  url: string;
  drop: () => Promise<void>;
}

export async function proxiedExternalDatabase(): Promise<ProxiedDatabase> {
  const admin = new URL(EXTERNAL_ADMIN_URL);
  const proxy = new CuttableProxy(admin.hostname, Number(admin.port || 5432));
  await proxy.start();
  const ext = await createExternalDatabase();
  const viaProxy = new URL(ext.url);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  return { proxy, url: viaProxy.toString(), drop: ext.drop };
}
